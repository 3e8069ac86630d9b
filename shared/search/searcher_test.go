package search_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/search/searchtest"
)

// results makes n results on host.
func results(host string, n int) []searchtest.Result {
	out := make([]searchtest.Result, n)
	for i := range out {
		out[i] = searchtest.Result{Title: fmt.Sprintf("%s %d", host, i), URL: fmt.Sprintf("https://%s/%d", host, i), Content: "c", Score: 0.5}
	}
	return out
}

func urls(items []search.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

func TestSearcherScope(t *testing.T) {
	const page = "https://app.shop.co.uk/checkout?step=2"
	cases := []struct {
		name        string
		pageURL     string
		corpus      []searchtest.Result
		maxResults  int
		wantDomains [][]string // include_domains of each request, in order
		wantScope   search.Scope
		wantDomain  string
		wantURLs    []string
	}{
		{"enough on the domain: no widening", page, append(results("help.shop.co.uk", 3), results("other.example", 2)...), 0,
			[][]string{{"shop.co.uk"}}, search.ScopeDomain, "shop.co.uk",
			[]string{"https://help.shop.co.uk/0", "https://help.shop.co.uk/1", "https://help.shop.co.uk/2"}},
		{"fewer than 3 on the domain: widened, the domain's first", page, append(results("other.example", 3), results("shop.co.uk", 2)...), 4,
			[][]string{{"shop.co.uk"}, nil}, search.ScopeWeb, "shop.co.uk",
			[]string{"https://shop.co.uk/0", "https://shop.co.uk/1", "https://other.example/0", "https://other.example/1"}},
		{"none on the domain: widened", page, results("other.example", 2), 0,
			[][]string{{"shop.co.uk"}, nil}, search.ScopeWeb, "shop.co.uk",
			[]string{"https://other.example/0", "https://other.example/1"}},
		{"asking for 2, 2 on the domain are enough", page, results("shop.co.uk", 5), 2,
			[][]string{{"shop.co.uk"}}, search.ScopeDomain, "shop.co.uk",
			[]string{"https://shop.co.uk/0", "https://shop.co.uk/1"}},
		{"an IP page searches the open web only", "http://10.0.0.7:8080/admin", results("other.example", 1), 0,
			[][]string{nil}, search.ScopeWeb, "", []string{"https://other.example/0"}},
		{"no page searches the open web only", "", nil, 0,
			[][]string{nil}, search.ScopeWeb, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := searchtest.New(t)
			srv.Add("return policy", tc.corpus...)
			s := search.NewSearcher(newClient(t, srv, searchtest.Key), nil, nil)
			r, err := s.Search(context.Background(), search.Request{TenantID: "ten-a", TaskID: "t1", Query: "return policy", PageURL: tc.pageURL, MaxResults: tc.maxResults})
			if err != nil {
				t.Fatal(err)
			}
			var domains [][]string
			for _, req := range srv.Requests() {
				domains = append(domains, req.IncludeDomains)
			}
			if fmt.Sprint(domains) != fmt.Sprint(tc.wantDomains) {
				t.Errorf("include_domains of the requests = %v, want %v", domains, tc.wantDomains)
			}
			if r.Scope != tc.wantScope || r.Domain != tc.wantDomain || r.Query != "return policy" || r.Cached {
				t.Errorf("got scope %q domain %q query %q cached %v, want %q %q %q false", r.Scope, r.Domain, r.Query, r.Cached, tc.wantScope, tc.wantDomain, "return policy")
			}
			if got := urls(r.Items); !slices.Equal(got, tc.wantURLs) {
				t.Errorf("got results %v, want %v", got, tc.wantURLs)
			}
			if r.Items == nil {
				t.Error("Items is nil, want an empty list")
			}
		})
	}
}

func TestSearcherFailures(t *testing.T) {
	cases := []struct {
		name      string
		corpus    []searchtest.Result
		script    func(*searchtest.Server)
		wantErr   bool
		wantURLs  []string
		wantLog   string
		wantCalls int
	}{
		{"the domain search fails", results("shop.example", 3),
			func(s *searchtest.Server) { s.Fail(400) }, true, nil, "", 1},
		{"the widening fails after domain results: they are kept", results("shop.example", 1),
			func(s *searchtest.Server) { s.Pass(); s.Fail(500); s.Fail(500); s.Fail(500) }, false,
			[]string{"https://shop.example/0"}, "widening the search to the open web failed", 4},
		{"the widening fails without domain results", results("other.example", 3),
			func(s *searchtest.Server) { s.Pass(); s.Fail(401) }, true, nil, "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := searchtest.New(t)
			srv.Add("q", tc.corpus...)
			tc.script(srv)
			var logs bytes.Buffer
			s := search.NewSearcher(newClient(t, srv, searchtest.Key), nil, slog.New(slog.NewJSONHandler(&logs, nil)))
			r, err := s.Search(context.Background(), search.Request{TenantID: "ten-a", TaskID: "t9", Query: "q", PageURL: "https://www.shop.example/"})
			if srv.Calls() != tc.wantCalls {
				t.Errorf("server got %d calls, want %d", srv.Calls(), tc.wantCalls)
			}
			if tc.wantErr {
				if !errors.Is(err, search.ErrUnavailable) {
					t.Errorf("Search() error = %v, want ErrUnavailable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := urls(r.Items); r.Scope != search.ScopeDomain || !slices.Equal(got, tc.wantURLs) {
				t.Errorf("got scope %q results %v, want domain %v", r.Scope, got, tc.wantURLs)
			}
			if !strings.Contains(logs.String(), tc.wantLog) || !strings.Contains(logs.String(), `"taskId":"t9"`) {
				t.Errorf("log %q, want %q with the task", logs.String(), tc.wantLog)
			}
		})
	}
}

func TestSearcherRejects(t *testing.T) {
	srv := searchtest.New(t)
	s := search.NewSearcher(newClient(t, srv, searchtest.Key), nil, nil)
	for _, req := range []search.Request{
		{TenantID: "ten-a", Query: "  \n\t "},
		{Query: "q"},
	} {
		if _, err := s.Search(context.Background(), req); !errors.Is(err, search.ErrInvalidQuery) {
			t.Errorf("Search(%+v) error = %v, want ErrInvalidQuery", req, err)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("server got %d calls, want none", srv.Calls())
	}
}

func TestSearcherPreparesTheQuery(t *testing.T) {
	long := strings.Repeat("word ", 100) // 500 characters
	cases := []struct {
		in, want string
	}{
		{"  how   to\nexport\tinvoices ", "how to export invoices"},
		{long, strings.TrimSpace(strings.Repeat("word ", 80))},
		{strings.Repeat("é", 450), strings.Repeat("é", 400)},
	}
	for _, tc := range cases {
		srv := searchtest.New(t)
		s := search.NewSearcher(newClient(t, srv, searchtest.Key), nil, nil)
		r, err := s.Search(context.Background(), search.Request{TenantID: "ten-a", Query: tc.in})
		if err != nil {
			t.Fatal(err)
		}
		if got := srv.Requests()[0].Query; got != tc.want || r.Query != tc.want {
			t.Errorf("query %.30q… sent as %.30q… (%d characters), want %.30q… (%d)", tc.in, got, len([]rune(got)), tc.want, len([]rune(tc.want)))
		}
	}
}

func TestUnconfigured(t *testing.T) {
	cause := fmt.Errorf("%w: no key", search.ErrNotConfigured)
	s := search.NewSearcher(search.Unconfigured{Err: cause}, nil, nil)
	_, err := s.Search(context.Background(), search.Request{TenantID: "ten-a", Query: "q", PageURL: "https://a.example/"})
	if !errors.Is(err, search.ErrUnavailable) || !errors.Is(err, search.ErrNotConfigured) {
		t.Errorf("Search() error = %v, want ErrUnavailable and ErrNotConfigured", err)
	}
}

func TestCacheKey(t *testing.T) {
	base := search.CacheKey("Return Policy", "shop.example", 5)
	cases := []struct {
		name  string
		key   string
		equal bool
	}{
		{"case and spacing ignored", search.CacheKey("  return   policy ", "shop.example", 5), true},
		{"0 results means the default", search.CacheKey("return policy", "shop.example", 0), true},
		{"another domain", search.CacheKey("return policy", "other.example", 5), false},
		{"the open web", search.CacheKey("return policy", "", 5), false},
		{"another count", search.CacheKey("return policy", "shop.example", 6), false},
		{"another query", search.CacheKey("refund policy", "shop.example", 5), false},
	}
	for _, tc := range cases {
		if (tc.key == base) != tc.equal {
			t.Errorf("%s: key equal = %v, want %v", tc.name, tc.key == base, tc.equal)
		}
	}
}
