package search_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/search/searchtest"
)

func newClient(t *testing.T, srv *searchtest.Server, key string) *search.Client {
	t.Helper()
	c, err := search.NewClient(search.Options{BaseURL: srv.URL(), APIKey: key, Backoff: time.Millisecond, AttemptTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recordWaits makes c record its waits between attempts instead of taking them.
func recordWaits(c *search.Client) *[]time.Duration {
	waits := new([]time.Duration)
	c.SetSleep(func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	})
	return waits
}

func TestClientSendsTheRequest(t *testing.T) {
	srv := searchtest.New(t)
	srv.Add("openemr register patient",
		searchtest.Result{Title: "Patients", URL: "https://demo.openemr.io/help/patients", Content: "  Open Patient > New.  ", Score: 0.9},
		searchtest.Result{Title: "Elsewhere", URL: "https://wiki.example.org/openemr", Content: "x", Score: 0.5},
	)
	c := newClient(t, srv, searchtest.Key)
	items, err := c.Search(context.Background(), search.Query{Query: "openemr register patient", IncludeDomains: []string{"openemr.io"}, MaxResults: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := []search.Item{{Title: "Patients", URL: "https://demo.openemr.io/help/patients", Content: "Open Patient > New.", Score: 0.9}}
	if len(items) != 1 || items[0] != want[0] {
		t.Errorf("Search() = %+v, want %+v", items, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Query != "openemr register patient" || r.SearchDepth != "basic" || r.MaxResults != 7 ||
		len(r.IncludeDomains) != 1 || r.IncludeDomains[0] != "openemr.io" || r.IncludeAnswer {
		t.Errorf("request = %+v, want the query, basic depth, 7 results, include_domains [openemr.io], no answer", r)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+searchtest.Key {
		t.Errorf("Authorization = %q, want the key as a bearer token", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got)
	}
}

func TestClientOpenWebSendsNoDomains(t *testing.T) {
	srv := searchtest.New(t)
	c := newClient(t, srv, searchtest.Key)
	items, err := c.Search(context.Background(), search.Query{Query: "anything"})
	if err != nil || len(items) != 0 {
		t.Fatalf("Search() = %+v, %v; want no results and no error", items, err)
	}
	if r := srv.Requests()[0]; r.IncludeDomains != nil || r.MaxResults != search.DefaultMaxResults {
		t.Errorf("request = %+v, want no include_domains and max_results %d", r, search.DefaultMaxResults)
	}
}

func TestClientRetries(t *testing.T) {
	cases := []struct {
		name         string
		script       func(*searchtest.Server)
		wantErr      bool
		wantStatus   int
		wantAttempts int
	}{
		{"429 then success", func(s *searchtest.Server) { s.Fail(429) }, false, 0, 2},
		{"500 and 503 then success", func(s *searchtest.Server) { s.Fail(500); s.Fail(503) }, false, 0, 3},
		{"Retry-After is honoured", func(s *searchtest.Server) { s.FailRetryAfter(429, time.Second) }, false, 0, 2},
		{"three 502s give up", func(s *searchtest.Server) { s.Fail(502); s.Fail(502); s.Fail(502) }, true, 502, 3},
		{"a long Retry-After gives up at once", func(s *searchtest.Server) { s.FailRetryAfter(429, time.Minute) }, true, 429, 1},
		{"400 is not retried", func(s *searchtest.Server) { s.Fail(400) }, true, 400, 1},
		{"432 (plan limit) is not retried", func(s *searchtest.Server) { s.Fail(432) }, true, 432, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := searchtest.New(t)
			srv.Add("q", searchtest.Result{Title: "t", URL: "https://a.example/", Content: "c"})
			tc.script(srv)
			c := newClient(t, srv, searchtest.Key)
			waits := recordWaits(c)
			items, err := c.Search(context.Background(), search.Query{Query: "q"})
			if srv.Calls() != tc.wantAttempts {
				t.Errorf("server got %d calls, want %d", srv.Calls(), tc.wantAttempts)
			}
			if !tc.wantErr {
				if err != nil || len(items) != 1 {
					t.Fatalf("Search() = %+v, %v; want one result", items, err)
				}
				return
			}
			var e *search.Error
			if !errors.As(err, &e) || !errors.Is(err, search.ErrUnavailable) {
				t.Fatalf("Search() error = %v, want a *search.Error matching ErrUnavailable", err)
			}
			if e.StatusCode != tc.wantStatus || e.Attempts != tc.wantAttempts {
				t.Errorf("error status %d after %d attempts, want %d after %d", e.StatusCode, e.Attempts, tc.wantStatus, tc.wantAttempts)
			}
			if tc.wantAttempts == 1 && len(*waits) != 0 {
				t.Errorf("waited %v before giving up, want no wait", *waits)
			}
		})
	}
}

func TestClientRetryAfterWaits(t *testing.T) {
	srv := searchtest.New(t)
	srv.FailRetryAfter(429, time.Second)
	c := newClient(t, srv, searchtest.Key)
	waits := recordWaits(c)
	if _, err := c.Search(context.Background(), search.Query{Query: "q"}); err != nil {
		t.Fatal(err)
	}
	if len(*waits) != 1 || (*waits)[0] < time.Second {
		t.Errorf("waits before the retry = %v, want one of at least the 1 s the server asked for", *waits)
	}
}

func TestClientKeepsTheDeadline(t *testing.T) {
	srv := searchtest.New(t)
	srv.Hang()
	srv.Hang()
	srv.Hang()
	c := newClient(t, srv, searchtest.Key)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err := c.Search(ctx, search.Query{Query: "q"})
	if !errors.Is(err, search.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Search() error = %v, want ErrUnavailable and DeadlineExceeded", err)
	}
	// The hanging attempt ends with the caller's deadline, and no attempt starts after it.
	if srv.Calls() != 1 {
		t.Errorf("server got %d calls, want 1", srv.Calls())
	}
}

func TestClientCallerCancels(t *testing.T) {
	srv := searchtest.New(t)
	reached := srv.Hang()
	c := newClient(t, srv, searchtest.Key)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-reached
		cancel()
	}()
	_, err := c.Search(ctx, search.Query{Query: "q"})
	if !errors.Is(err, context.Canceled) || srv.Calls() != 1 {
		t.Errorf("Search() error = %v after %d calls, want context.Canceled after 1", err, srv.Calls())
	}
}

func TestClientWrongKey(t *testing.T) {
	srv := searchtest.New(t)
	c := newClient(t, srv, "tvly-wrong-key")
	_, err := c.Search(context.Background(), search.Query{Query: "q"})
	var e *search.Error
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Attempts != 1 {
		t.Fatalf("Search() error = %v, want a 401 after one attempt", err)
	}
	if !strings.Contains(err.Error(), "invalid API key") || strings.Contains(err.Error(), "tvly-wrong-key") {
		t.Errorf("error %q: want the service's message, never the key", err)
	}
}

func TestClientRejectsBadResponses(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		wantErr string
		want    int
	}{
		{"not JSON", "<html>", "not a search result", 0},
		{"results without usable URLs are dropped", `{"results":[{"title":"a","url":"javascript:alert(1)"},{"title":"b","url":""},{"title":"c","url":"https://ok.example/","content":"x","score":0.1}]}`, "", 1},
		{"fields are bounded", `{"results":[{"title":"` + strings.Repeat("é", 400) + `","url":"https://ok.example/","content":"` + strings.Repeat("x", 5000) + `"}]}`, "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, err := search.NewClient(search.Options{BaseURL: srv.URL, APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			items, err := c.Search(context.Background(), search.Query{Query: "q"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Search() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(items) != tc.want {
				t.Fatalf("Search() = %d items, %v; want %d", len(items), err, tc.want)
			}
			for _, it := range items {
				if len(it.Title) > 300 || len(it.Content) > 2000 || !strings.HasPrefix(it.URL, "https://") {
					t.Errorf("item title %d bytes, content %d bytes, URL %q; want bounded fields and an http(s) URL", len(it.Title), len(it.Content), it.URL)
				}
			}
		})
	}
}

func TestNewClientValidates(t *testing.T) {
	if _, err := search.NewClient(search.Options{BaseURL: "api.tavily.com", APIKey: "k"}); err == nil {
		t.Error("NewClient() with a base URL without scheme: error = nil, want one")
	}
	if _, err := search.NewClient(search.Options{APIKey: " "}); !errors.Is(err, search.ErrNotConfigured) {
		t.Errorf("NewClient() without a key: error = %v, want ErrNotConfigured", err)
	}
}
