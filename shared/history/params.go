package history

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/validation"

	"github.com/screenagent/backend/shared/httpapi"
)

// Query reads a request's query parameters for validation: each parameter may be given once, and
// a parameter that is given is validated even when empty. Parameters it is not asked about are
// ignored, as clients may send more than a route reads.
type Query struct {
	values url.Values
	err    error
}

// NewQuery parses the request's query string; a malformed one (bad percent-encoding) makes every
// read fail with 400 on the field "query".
func NewQuery(r *http.Request) Query {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return Query{err: httpapi.Validation("query", "is not a valid query string")}
	}
	return Query{values: v}
}

// lookup returns the parameter's value and whether it was given.
func (q Query) lookup(name string) (string, bool, error) {
	if q.err != nil {
		return "", false, q.err
	}
	vs, ok := q.values[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) > 1:
		return "", false, httpapi.Validation(name, "must be given once")
	}
	return vs[0], true, nil
}

// digits bounds what is parsed as a number: no sign, no spaces, no exponent, and short enough
// that it cannot overflow.
var digits = regexp.MustCompile(`^[0-9]{1,9}$`)

// Int reads an integer parameter in [lo, hi]; def when it is absent.
func (q Query) Int(name string, def, lo, hi int) (int, error) {
	v, ok, err := q.lookup(name)
	if err != nil || !ok {
		return def, err
	}
	n, convErr := strconv.Atoi(v)
	if !digits.MatchString(v) || convErr != nil || n < lo || n > hi {
		return 0, httpapi.Validation(name, fmt.Sprintf("must be an integer from %d to %d", lo, hi))
	}
	return n, nil
}

// Bool reads true or false; def when absent.
func (q Query) Bool(name string, def bool) (bool, error) {
	v, ok, err := q.lookup(name)
	if err != nil || !ok {
		return def, err
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, httpapi.Validation(name, "must be true or false")
}

// Time reads an ISO 8601 date-time with a time zone (RFC 3339, e.g. 2026-01-27T00:00:00.000Z);
// zero when absent. A "+" of an offset that the client did not percent-encode arrives as a space
// and is read back as "+".
func (q Query) Time(name string) (time.Time, error) {
	v, ok, err := q.lookup(name)
	if err != nil || !ok {
		return time.Time{}, err
	}
	t, perr := time.Parse(time.RFC3339Nano, strings.ReplaceAll(v, " ", "+"))
	if perr != nil {
		return time.Time{}, httpapi.Validation(name, "must be an ISO 8601 date-time with a time zone, e.g. 2026-01-27T00:00:00.000Z")
	}
	return t.UTC(), nil
}

// ID reads a UUID parameter, in lower case; "" when absent.
func (q Query) ID(name string) (string, error) {
	v, ok, err := q.lookup(name)
	if err != nil || !ok {
		return "", err
	}
	return validation.ParseID(name, v)
}

// Enum reads a parameter that must be one of allowed; "" when absent.
func (q Query) Enum(name string, allowed ...string) (string, error) {
	v, ok, err := q.lookup(name)
	if err != nil || !ok {
		return "", err
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", httpapi.Validation(name, "must be one of "+strings.Join(allowed, ", "))
}
