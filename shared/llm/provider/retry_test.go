package provider

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 19, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "3", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(4 * time.Second).Format(http.TimeFormat)}, 4 * time.Second},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"huge saturates", map[string]string{"Retry-After": "1e300"}, 1<<63 - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tc.want {
				t.Errorf("retryAfter(%v) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "0.5", "NaN", "-1", "+Inf", "1e400", "Wed, 21 Oct 2015 07:28:00 GMT", ""} {
		f.Add(s, s)
	}
	now := time.Now()
	f.Fuzz(func(t *testing.T, seconds, ms string) {
		h := http.Header{}
		h.Set("Retry-After", seconds)
		h.Set("Retry-After-Ms", ms)
		if got := retryAfter(h, now); got < 0 {
			t.Errorf("retryAfter(%q, %q) = %v, want >= 0", seconds, ms, got)
		}
	})
}

func TestJitter(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 2, 500 * time.Millisecond, time.Second} {
		for range 100 {
			if got := jitter(d); got < d/2 || got > d {
				t.Fatalf("jitter(%v) = %v, want within [%v, %v]", d, got, d/2, d)
			}
		}
	}
}

func TestSafeCode(t *testing.T) {
	cases := []struct {
		in   []string
		want string
	}{
		{[]string{"context_length_exceeded", "invalid_request_error"}, "context_length_exceeded"},
		{[]string{"", "server_error"}, "server_error"},
		{[]string{"Incorrect API key provided: sk-abc", ""}, ""},
	}
	for _, tc := range cases {
		if got := safeCode(tc.in...); got != tc.want {
			t.Errorf("safeCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
