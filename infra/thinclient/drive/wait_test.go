package drive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// refusal is one scripted answer of the refusing server.
type refusal struct {
	status     int
	retryAfter string
}

// refusingAPI answers each request with the next refusal, then 200, and keeps the bodies.
type refusingAPI struct {
	mu     sync.Mutex
	script []refusal
	bodies []string
}

func (f *refusingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bodies = append(f.bodies, string(b))
	w.Header().Set("Content-Type", "application/json")
	if len(f.script) > 0 {
		next := f.script[0]
		f.script = f.script[1:]
		if next.retryAfter != "" {
			w.Header().Set("Retry-After", next.retryAfter)
		}
		w.WriteHeader(next.status)
		io.WriteString(w, `{"success":false,"code":"RATE_LIMITED","error":"RATE_LIMITED","message":"later"}`)
		return
	}
	io.WriteString(w, `{"success":true,"data":{"action":"finish()","taskId":"t1"},"action":"finish","runId":"r1"}`)
}

func TestWaitsOutRetryAfter(t *testing.T) {
	many := make([]refusal, MaxWaits+1)
	for i := range many {
		many[i] = refusal{429, "1"}
	}
	tests := []struct {
		name       string
		call       func(ctx context.Context, a *API) error
		script     []refusal
		wantWaits  []time.Duration
		wantStatus int // of the error; 0: success
	}{
		{"interact: 429 then success", interactCall, []refusal{{429, "24"}}, []time.Duration{24 * time.Second}, 0},
		{"interact: 503 while starting, then 429", interactCall, []refusal{{503, "5"}, {429, "2"}}, []time.Duration{5 * time.Second, 2 * time.Second}, 0},
		{"run step: 429 then success", runStepCall, []refusal{{429, "3"}}, []time.Duration{3 * time.Second}, 0},
		{"run start: 503 then success", runStartCall, []refusal{{503, "1"}}, []time.Duration{time.Second}, 0},
		{"an HTTP-date Retry-After", interactCall, []refusal{{429, time.Now().Add(time.Minute).UTC().Format(http.TimeFormat)}}, nil, 0},
		{"a wait beyond the bound ends the call", interactCall, []refusal{{429, "3600"}}, nil, 429},
		{"no Retry-After ends the call", runStepCall, []refusal{{503, ""}}, nil, 503},
		{"other statuses are not waited out", interactCall, []refusal{{500, "1"}}, nil, 500},
		{"at most MaxWaits waits", interactCall, many, repeat(time.Second, MaxWaits), 429},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &refusingAPI{script: tc.script}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			var waits []time.Duration
			var said bytes.Buffer
			a := &API{base: srv.URL, token: "tok", http: srv.Client(), Waiter: Waiter{
				Sleep:  func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
				Notify: &said,
			}}
			err := tc.call(t.Context(), a)

			var apiErr *APIError
			switch {
			case tc.wantStatus == 0 && err != nil:
				t.Fatalf("got %v, want success after the waits", err)
			case tc.wantStatus != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tc.wantStatus):
				t.Fatalf("got %v, want HTTP %d", err, tc.wantStatus)
			}
			if strings.Contains(tc.name, "HTTP-date") {
				// The date's wait depends on the clock only in its last second.
				if len(waits) != 1 || waits[0] < 58*time.Second || waits[0] > time.Minute {
					t.Fatalf("got waits %v, want one of about a minute", waits)
				}
			} else if !slices.Equal(waits, tc.wantWaits) {
				t.Errorf("got waits %v, want %v", waits, tc.wantWaits)
			}
			if got := strings.Count(said.String(), "waiting"); got != len(waits) {
				t.Errorf("printed %d wait lines, want %d:\n%s", got, len(waits), said.String())
			}
			for i, b := range fake.bodies {
				if b != fake.bodies[0] {
					t.Errorf("request %d sent %q, want the same body as the first %q", i+1, b, fake.bodies[0])
				}
			}
			if len(fake.bodies) != len(waits)+1 {
				t.Errorf("server got %d requests, want %d (one per wait, plus the first)", len(fake.bodies), len(waits)+1)
			}
		})
	}
}

// A context that ends during a wait ends the call.
func TestWaitEndsWithTheContext(t *testing.T) {
	srv := httptest.NewServer(&refusingAPI{script: []refusal{{429, "30"}}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	a := &API{base: srv.URL, http: srv.Client(), Waiter: Waiter{Notify: io.Discard}}
	done := make(chan error, 1)
	go func() { done <- interactCall(ctx, a) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func interactCall(ctx context.Context, a *API) error {
	_, err := a.interact(ctx, interactRequest{URL: "https://example.com", Query: "q", DOM: "<html></html>"})
	return err
}

func runStepCall(ctx context.Context, a *API) error {
	_, err := a.runStep(ctx, "r1", nil, nil, nil)
	return err
}

func runStartCall(ctx context.Context, a *API) error {
	_, err := a.runStart(ctx, "task", "careful", "", "", nil, nil)
	return err
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}
