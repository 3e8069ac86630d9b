// Package usertime is the user's clock: the IANA time zone and BCP 47 locale a request may
// carry, checked, and the time as the model should read it (local, with the zone named), so
// that "today at 10:00" means the user's today.
package usertime

import (
	"errors"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // Lambda images have no zoneinfo of their own
)

// Limits of the fields.
const (
	MaxTimezone = 64
	MaxLocale   = 35
)

// Errors of Parse, each naming the field.
var (
	ErrTimezone = errors.New("timezone must be an IANA time zone name such as Europe/Paris")
	ErrLocale   = errors.New("locale must be a BCP 47 language tag such as de-DE")
)

var localePattern = regexp.MustCompile(`^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$`)

// Clock is the user's zone and locale; the zero Clock knows neither (times are shown in UTC).
type Clock struct {
	Zone   *time.Location
	Locale string
}

// Parse checks the request's timezone and locale; empty ones are unknown, not errors.
func Parse(timezone, locale string) (Clock, error) {
	var c Clock
	timezone, locale = strings.TrimSpace(timezone), strings.TrimSpace(locale)
	if timezone != "" {
		// LoadLocation also reads paths and "Local": only zone names are accepted.
		if len(timezone) > MaxTimezone || strings.Contains(timezone, "..") || timezone == "Local" || strings.HasPrefix(timezone, "/") {
			return Clock{}, ErrTimezone
		}
		loc, err := time.LoadLocation(timezone)
		if err != nil {
			return Clock{}, ErrTimezone
		}
		c.Zone = loc
	}
	if locale != "" {
		if len(locale) > MaxLocale || !localePattern.MatchString(locale) {
			return Clock{}, ErrLocale
		}
		c.Locale = locale
	}
	return c, nil
}

// Name is the zone's name, "" when unknown.
func (c Clock) Name() string {
	if c.Zone == nil {
		return ""
	}
	return c.Zone.String()
}

// Format is t as the model reads it: the user's local time and zone when known, else UTC
// (named so); the locale follows when known.
func (c Clock) Format(t time.Time) string {
	var s string
	if c.Zone == nil {
		s = t.UTC().Format("Mon, 02 Jan 2006 15:04 MST") // the zone is named: UTC, not the user's
	} else {
		s = t.In(c.Zone).Format("Mon, 02 Jan 2006 15:04 MST (UTC-07:00)") + ", the user's time zone " + c.Zone.String()
	}
	if c.Locale != "" {
		s += "; the user's locale " + c.Locale
	}
	return s
}
