package usertime

import (
	"errors"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, tz, locale string
		wantErr          error
		wantZone         string
	}{
		{"both", "Europe/Berlin", "de-DE", nil, "Europe/Berlin"},
		{"none", "", "", nil, ""},
		{"unknown zone", "Mars/Olympus", "", ErrTimezone, ""},
		{"a path is not a zone", "../../etc/passwd", "", ErrTimezone, ""},
		{"the server's zone is not the user's", "Local", "", ErrTimezone, ""},
		{"not a language tag", "", "de_DE; drop", ErrLocale, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.tz, tc.locale)
			if !errors.Is(err, tc.wantErr) || err == nil && c.Name() != tc.wantZone {
				t.Errorf("Parse(%q, %q) = %q, %v; want %q, %v", tc.tz, tc.locale, c.Name(), err, tc.wantZone, tc.wantErr)
			}
		})
	}
}

func TestFormatShowsTheUsersLocalTime(t *testing.T) {
	at := time.Date(2026, 11, 28, 16, 23, 0, 0, time.UTC)
	tests := []struct {
		name, tz, locale, want string
	}{
		{"Tokyo is the next morning", "Asia/Tokyo", "ja-JP", "Sun, 29 Nov 2026 01:23 JST (UTC+09:00), the user's time zone Asia/Tokyo; the user's locale ja-JP"},
		{"New York", "America/New_York", "", "Sat, 28 Nov 2026 11:23 EST (UTC-05:00), the user's time zone America/New_York"},
		{"unknown", "", "", "Sat, 28 Nov 2026 16:23 UTC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.tz, tc.locale)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Format(at); got != tc.want {
				t.Errorf("Format() = %q, want %q", got, tc.want)
			}
		})
	}
}
