package ratelimit

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/httpapi"
)

const (
	wantLimitedEnvelope = `{"success":false,"code":"RATE_LIMIT","message":"Rate limit exceeded. Please try again later.","retryAfter":43}`
	wantLimitedRunAPI   = `{"error":"RATE_LIMIT","message":"Rate limit exceeded. Please try again later."}`
)

// byTestHeaders stands in for the authenticated identity: the tenant and tier come from headers
// only the test sets.
func byTestHeaders(r *http.Request) (string, accounts.Tier) {
	return TenantSubject(r.Header.Get("X-Test-Tenant")), accounts.Tier(r.Header.Get("X-Test-Tier"))
}

// counting is a route that counts its runs per tenant.
type counting struct {
	mu  sync.Mutex
	ran map[string]int
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	if c.ran == nil {
		c.ran = map[string]int{}
	}
	c.ran[r.Header.Get("X-Test-Tenant")]++
	c.mu.Unlock()
	httpapi.WriteData(w, http.StatusOK, "ok")
}

func (c *counting) runs(tenant string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran[tenant]
}

func mustConfig(t *testing.T, env map[string]string) Config {
	t.Helper()
	c, err := ParseConfig(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func call(h http.Handler, tenant string, tier accounts.Tier) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/api/agent/interact", strings.NewReader(`{}`))
	r.Header.Set("X-Test-Tenant", tenant)
	r.Header.Set("X-Test-Tier", string(tier))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// callConcurrently sends n requests of tenant at once and returns their responses.
func callConcurrently(wg *sync.WaitGroup, h http.Handler, tenant string, tier accounts.Tier, n int) []*httptest.ResponseRecorder {
	out := make([]*httptest.ResponseRecorder, n)
	for i := range n {
		wg.Go(func() { out[i] = call(h, tenant, tier) })
	}
	return out
}

func header(w *httptest.ResponseRecorder, name string) int {
	n, _ := strconv.Atoi(w.Header().Get(name))
	return n
}

func TestMiddlewareConcurrentRequests(t *testing.T) {
	now := windowStart.Add(17 * time.Second)
	l, _, clock := newLimiter(t, now)
	route := &counting{}
	h := Middleware(l, mustConfig(t, map[string]string{EnvInteract: "10"}), ClassInteract, byTestHeaders, RefuseEnvelope)(route)
	reset := int(windowStart.Add(time.Minute).Unix())

	var wg sync.WaitGroup
	a := callConcurrently(&wg, h, "a", accounts.TierFree, 50)
	b := callConcurrently(&wg, h, "b", accounts.TierFree, 10)
	wg.Wait()

	passed, refused := 0, 0
	remaining := map[int]bool{}
	for _, w := range a {
		if got := header(w, "X-RateLimit-Limit"); got != 10 {
			t.Errorf("got X-RateLimit-Limit %d, want 10", got)
		}
		if got := header(w, "X-RateLimit-Reset"); got != reset {
			t.Errorf("got X-RateLimit-Reset %d, want %d", got, reset)
		}
		switch w.Code {
		case http.StatusOK:
			passed++
			remaining[header(w, "X-RateLimit-Remaining")] = true
		case http.StatusTooManyRequests:
			refused++
			if got := header(w, "Retry-After"); got < 1 || got > 60 || got != 43 {
				t.Errorf("got Retry-After %d, want 43 (the window end, within [1, 60])", got)
			}
			if got := w.Header().Get("X-RateLimit-Remaining"); got != "0" {
				t.Errorf("got X-RateLimit-Remaining %q on a refusal, want 0", got)
			}
			if got := w.Body.String(); got != wantLimitedEnvelope {
				t.Errorf("got body %s, want %s", got, wantLimitedEnvelope)
			}
		default:
			t.Errorf("got status %d, want 200 or 429", w.Code)
		}
	}
	if passed != 10 || refused != 40 {
		t.Errorf("got %d passed and %d refused, want 10 and 40", passed, refused)
	}
	if len(remaining) != 10 || remaining[10] || remaining[-1] {
		t.Errorf("got X-RateLimit-Remaining values %v on the passes, want each of 0..9 once", remaining)
	}
	if got := route.runs("a"); got != 10 {
		t.Errorf("the route ran %d times for tenant a, want 10", got)
	}

	for _, w := range b {
		if w.Code != http.StatusOK {
			t.Errorf("tenant b: got status %d, want 200 for all of its 10", w.Code)
		}
	}
	if got := route.runs("b"); got != 10 {
		t.Errorf("the route ran %d times for tenant b, want 10", got)
	}

	clock.t = now.Add(time.Minute)
	w := call(h, "a", accounts.TierFree)
	if w.Code != http.StatusOK || header(w, "X-RateLimit-Remaining") != 9 || header(w, "X-RateLimit-Reset") != reset+60 {
		t.Errorf("next window: got %d with remaining %s reset %s, want 200, 9, %d",
			w.Code, w.Header().Get("X-RateLimit-Remaining"), w.Header().Get("X-RateLimit-Reset"), reset+60)
	}
}

func TestMiddlewareTierMultiplier(t *testing.T) {
	l, _, _ := newLimiter(t, windowStart)
	route := &counting{}
	h := Middleware(l, mustConfig(t, map[string]string{EnvInteract: "2"}), ClassInteract, byTestHeaders, RefuseEnvelope)(route)
	cases := []struct {
		tier     accounts.Tier
		wantPass int
	}{
		{accounts.TierFree, 2},
		{accounts.TierPro, 10},
		{accounts.TierEnterprise, 40},
	}
	var wg sync.WaitGroup
	got := make([][]*httptest.ResponseRecorder, len(cases))
	for i, tc := range cases {
		got[i] = callConcurrently(&wg, h, string(tc.tier), tc.tier, 50)
	}
	wg.Wait()
	for i, tc := range cases {
		passed := 0
		for _, w := range got[i] {
			if w.Code == http.StatusOK {
				passed++
			}
			if limit := header(w, "X-RateLimit-Limit"); limit != tc.wantPass {
				t.Errorf("%s: got X-RateLimit-Limit %d, want %d", tc.tier, limit, tc.wantPass)
			}
		}
		if passed != tc.wantPass || route.runs(string(tc.tier)) != tc.wantPass {
			t.Errorf("%s: got %d passed and %d runs, want %d", tc.tier, passed, route.runs(string(tc.tier)), tc.wantPass)
		}
	}
}

func TestRefuseRunAPI(t *testing.T) {
	l, _, _ := newLimiter(t, windowStart.Add(17*time.Second))
	route := &counting{}
	h := Middleware(l, mustConfig(t, map[string]string{EnvRuns: "1"}), ClassRuns, byTestHeaders, RefuseRunAPI)(route)
	if w := call(h, "a", accounts.TierFree); w.Code != http.StatusOK {
		t.Fatalf("first request: got %d, want 200", w.Code)
	}
	w := call(h, "a", accounts.TierFree)
	if w.Code != http.StatusTooManyRequests || w.Body.String() != wantLimitedRunAPI {
		t.Errorf("got %d %s, want 429 %s", w.Code, w.Body, wantLimitedRunAPI)
	}
	if got := w.Header().Get("Retry-After"); got != "43" {
		t.Errorf("got Retry-After %q, want 43", got)
	}
	if got := route.runs("a"); got != 1 {
		t.Errorf("the route ran %d times, want 1", got)
	}
}

// closedEndpoint is the address of a port nothing listens on.
func closedEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestMiddlewareStoreFailureFailsClosed(t *testing.T) {
	l, db, _ := newLimiter(t, windowStart.Add(17*time.Second))
	missingTable := New(db.Client, "no_such_table")
	unreachable := New(dynamodb.New(db.Client.Options(), func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(closedEndpoint(t))
		o.RetryMaxAttempts = 1
	}), db.Tables["RateLimitsTable"])
	for _, broken := range []*Limiter{missingTable, unreachable} {
		broken.Now = l.Now
	}
	cases := []struct {
		name     string
		limiter  *Limiter
		class    string
		refuse   Refuse
		wantBody string
	}{
		{"missing table, envelope", missingTable, ClassAuthSession, RefuseEnvelope,
			`{"success":false,"code":"SERVICE_UNAVAILABLE","message":"The service is temporarily unavailable. Please try again later.","retryAfter":43}`},
		{"unreachable store, envelope", unreachable, ClassAuthSession, RefuseEnvelope,
			`{"success":false,"code":"SERVICE_UNAVAILABLE","message":"The service is temporarily unavailable. Please try again later.","retryAfter":43}`},
		{"missing table, run API", missingTable, ClassRuns, RefuseRunAPI,
			`{"error":"SERVICE_UNAVAILABLE","message":"The service is temporarily unavailable. Please try again later."}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			route := &counting{}
			var log bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&log, nil))
			h := httpapi.Logged(logger, "test", Middleware(tc.limiter, mustConfig(t, nil), tc.class, byTestHeaders, tc.refuse)(route))
			w := call(h, "a", accounts.TierFree)
			if w.Code != http.StatusServiceUnavailable || w.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want 503 %s", w.Code, w.Body, tc.wantBody)
			}
			if got := route.runs("a"); got != 0 {
				t.Errorf("the route ran %d times, want 0", got)
			}
			if got := w.Header().Get("Retry-After"); got != "43" {
				t.Errorf("got Retry-After %q, want 43", got)
			}
			if got := w.Header().Get("X-RateLimit-Remaining"); got != "0" {
				t.Errorf("got X-RateLimit-Remaining %q, want 0", got)
			}
			var line struct {
				Status int    `json:"status"`
				Error  string `json:"error"`
			}
			if err := json.Unmarshal(log.Bytes(), &line); err != nil {
				t.Fatalf("log line %q: %v", log.String(), err)
			}
			if line.Status != 503 || !strings.Contains(line.Error, "ratelimit: count") {
				t.Errorf("got log line %s, want status 503 and the store's error", log.String())
			}
		})
	}
}

func TestMiddlewarePanicsOnUnknownClass(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("got no panic for an unknown class, want one at wiring time")
		}
	}()
	Middleware(nil, mustConfig(t, nil), "nonexistent", byIP, RefuseEnvelope)
}

func TestByIP(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/auth/session", nil)
	r.RemoteAddr = "203.0.113.9:51234"
	subject, tier := byIP(r)
	if subject != "IP#203.0.113.9" || tier != "" {
		t.Errorf("got %q, %q; want IP#203.0.113.9 and no tier", subject, tier)
	}
}
