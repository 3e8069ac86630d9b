package emulator

import (
	"net/http"
	"testing"

	"github.com/screenagent/backend/shared/sam"
)

func TestCORSPolicy(t *testing.T) {
	specific := &sam.Cors{
		AllowOrigins:  []string{"chrome-extension://abcdef"},
		AllowMethods:  []string{"GET", "POST"},
		AllowHeaders:  []string{"Authorization"},
		ExposeHeaders: []string{"Retry-After"},
		MaxAge:        600,
	}
	wildcard := &sam.Cors{AllowOrigins: []string{"*"}, AllowMethods: []string{"*"}}
	withCredentials := &sam.Cors{AllowOrigins: []string{"*"}, AllowCredentials: true}
	tests := []struct {
		name          string
		cors          *sam.Cors
		origin        string
		wantPreflight http.Header
		wantResponse  http.Header
	}{
		{
			name:   "allowed origin",
			cors:   specific,
			origin: "chrome-extension://abcdef",
			wantPreflight: http.Header{
				"Access-Control-Allow-Origin":  {"chrome-extension://abcdef"},
				"Access-Control-Allow-Methods": {"GET,POST"},
				"Access-Control-Allow-Headers": {"Authorization"},
				"Access-Control-Max-Age":       {"600"},
			},
			wantResponse: http.Header{
				"Access-Control-Allow-Origin":   {"chrome-extension://abcdef"},
				"Access-Control-Expose-Headers": {"Retry-After"},
			},
		},
		{name: "other origin", cors: specific, origin: "https://evil.example", wantPreflight: http.Header{}, wantResponse: http.Header{}},
		{name: "no origin", cors: specific, wantPreflight: http.Header{}, wantResponse: http.Header{}},
		{
			name:          "any origin",
			cors:          wildcard,
			origin:        "https://anyone.example",
			wantPreflight: http.Header{"Access-Control-Allow-Origin": {"*"}, "Access-Control-Allow-Methods": {"*"}},
			wantResponse:  http.Header{"Access-Control-Allow-Origin": {"*"}},
		},
		{
			name:   "any origin with credentials echoes the origin",
			cors:   withCredentials,
			origin: "https://anyone.example",
			wantPreflight: http.Header{
				"Access-Control-Allow-Origin":      {"https://anyone.example"},
				"Access-Control-Allow-Credentials": {"true"},
			},
			wantResponse: http.Header{
				"Access-Control-Allow-Origin":      {"https://anyone.example"},
				"Access-Control-Allow-Credentials": {"true"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newCORSPolicy(tt.cors)
			pre := http.Header{}
			p.preflight(pre, tt.origin)
			assertHeaders(t, "preflight", pre, tt.wantPreflight)
			// A function's own CORS headers never survive.
			res := http.Header{"Access-Control-Allow-Origin": {"https://evil.example"}, "X-Kept": {"1"}}
			p.apply(res, tt.origin)
			tt.wantResponse["X-Kept"] = []string{"1"}
			assertHeaders(t, "response", res, tt.wantResponse)
		})
	}
}

func assertHeaders(t *testing.T, what string, got, want http.Header) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got headers %v, want %v", what, got, want)
		return
	}
	for k := range want {
		if got.Get(k) != want.Get(k) {
			t.Errorf("%s: got %s %q, want %q", what, k, got.Get(k), want.Get(k))
		}
	}
}
