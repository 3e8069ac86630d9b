// Package searchtest is a fake of Tavily's search API for tests and local runs. It speaks the
// real wire format (POST /search, the key as a bearer token or as api_key in the body, Tavily's
// error bodies), answers from scripted results per query, filtered by include_domains and
// exclude_domains and cut to max_results as Tavily does, records every request, and fails on
// demand (429 and 5xx with Retry-After, or a request that never gets an answer).
package searchtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Key is the API key the server of New accepts.
const Key = "tvly-dev-searchtest"

// Result is one search result, as Tavily sends it.
type Result struct {
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
}

// Recorded is one search request as the server received it.
type Recorded struct {
	Query       string
	SearchDepth string
	// MaxResults is max_results as sent, 0 when absent.
	MaxResults     int
	IncludeDomains []string
	ExcludeDomains []string
	IncludeAnswer  bool
	// Key is the API key the request presented, from its Authorization header or its body.
	Key    string
	Header http.Header
}

// Script is a file of scripted results, as LoadScript reads it.
type Script []struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
}

// failure is what happens to the next request: a failure, or (pass) its normal answer.
type failure struct {
	status     int
	retryAfter time.Duration
	// hang, when set, is closed as the request that never gets an answer arrives (Hang).
	hang chan struct{}
	pass bool
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	srv     *httptest.Server
	key     string
	closing chan struct{}
	once    sync.Once

	mu       sync.Mutex
	results  map[string][]Result
	generate bool
	failures []failure
	requests []Recorded
}

// New starts a server accepting Key, closed when the test ends.
func New(t testing.TB) *Server {
	s := Start(Key)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on a local port accepting key; Close stops it.
func Start(key string) *Server {
	s := &Server{key: key, closing: make(chan struct{}), results: map[string][]Result{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/search", s.search)
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeDetail(w, http.StatusNotFound, "Not Found")
	})
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the base URL to configure clients with (TAVILY_BASE_URL).
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server, releasing requests left hanging.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.srv.Close()
	})
}

// Add scripts results for a query (compared without regard to case and spacing). Each request
// for it gets those of them inside its include_domains, outside its exclude_domains, up to its
// max_results, in the order given.
func (s *Server) Add(query string, results ...Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := queryKey(query)
	s.results[k] = append(s.results[k], results...)
}

// LoadScript adds the results of a JSON script: [{"query": "...", "results": [{"title", "url",
// "content", "score"}]}].
func (s *Server) LoadScript(r io.Reader) error {
	var script Script
	if err := json.NewDecoder(r).Decode(&script); err != nil {
		return fmt.Errorf("search script: %w", err)
	}
	for i, e := range script {
		if strings.TrimSpace(e.Query) == "" {
			return fmt.Errorf("search script: entry %d has no query", i)
		}
		s.Add(e.Query, e.Results...)
	}
	return nil
}

// GenerateUnscripted makes the server answer a query it has no results for with three made-up
// results (on the requested domain when there is one) instead of none, for local runs.
func (s *Server) GenerateUnscripted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.generate = true
}

// Fail makes the next request (after those already scripted to fail) fail with status.
func (s *Server) Fail(status int) { s.push(failure{status: status}) }

// FailRetryAfter is Fail with a Retry-After header of d (whole seconds, rounded up).
func (s *Server) FailRetryAfter(status int, d time.Duration) {
	s.push(failure{status: status, retryAfter: d})
}

// Pass lets the next request be answered normally, so that failures scripted after it hit the
// requests that follow (e.g. the second search of a widened one).
func (s *Server) Pass() { s.push(failure{pass: true}) }

// Hang makes the next request wait without an answer until the client gives up. The channel is
// closed when that request has arrived, for tests that act on a call in flight.
func (s *Server) Hang() <-chan struct{} {
	reached := make(chan struct{})
	s.push(failure{hang: reached})
	return reached
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Calls is the number of requests received so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *Server) push(f failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, f)
}

// wireRequest is the body of POST /search.
type wireRequest struct {
	APIKey         string   `json:"api_key"`
	Query          *string  `json:"query"`
	SearchDepth    string   `json:"search_depth"`
	MaxResults     *int     `json:"max_results"`
	IncludeDomains []string `json:"include_domains"`
	ExcludeDomains []string `json:"exclude_domains"`
	IncludeAnswer  any      `json:"include_answer"`
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.Method != http.MethodPost {
		writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	var in wireRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in); err != nil {
		writeDetail(w, http.StatusBadRequest, "Invalid JSON body.")
		return
	}
	rec := Recorded{
		SearchDepth: in.SearchDepth, IncludeDomains: in.IncludeDomains, ExcludeDomains: in.ExcludeDomains,
		IncludeAnswer: in.IncludeAnswer == true || in.IncludeAnswer == "basic" || in.IncludeAnswer == "advanced",
		Key:           in.APIKey, Header: r.Header.Clone(),
	}
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		rec.Key = bearer
	}
	if in.Query != nil {
		rec.Query = *in.Query
	}
	if in.MaxResults != nil {
		rec.MaxResults = *in.MaxResults
	}

	s.mu.Lock()
	s.requests = append(s.requests, rec)
	var fail *failure
	if len(s.failures) > 0 {
		if f := s.failures[0]; !f.pass {
			fail = &f
		}
		s.failures = s.failures[1:]
	}
	s.mu.Unlock()

	switch {
	case fail != nil && fail.hang != nil:
		close(fail.hang)
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	case fail != nil:
		if fail.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(int64((fail.retryAfter+time.Second-1)/time.Second), 10))
		}
		msg := http.StatusText(fail.status)
		if fail.status == http.StatusTooManyRequests {
			msg = "Your request has been blocked due to excessive requests. Please reduce the rate of requests."
		}
		writeDetail(w, fail.status, msg)
		return
	case rec.Key != s.key:
		writeDetail(w, http.StatusUnauthorized, "Unauthorized: missing or invalid API key.")
		return
	}
	if msg := invalid(in); msg != "" {
		writeDetail(w, http.StatusBadRequest, msg)
		return
	}
	limit := 5
	if in.MaxResults != nil {
		limit = *in.MaxResults
	}
	results := s.answer(rec.Query, in.IncludeDomains, in.ExcludeDomains, limit)
	var answer any
	if rec.IncludeAnswer && len(results) > 0 {
		answer = results[0].Content
	}
	out := make([]map[string]any, len(results))
	for i, res := range results {
		out[i] = map[string]any{"url": res.URL, "title": res.Title, "content": res.Content, "score": res.Score, "raw_content": nil}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"query":               rec.Query,
		"follow_up_questions": nil,
		"answer":              answer,
		"images":              []any{},
		"results":             out,
		"response_time":       float64(time.Since(start).Microseconds()) / 1e6,
		"request_id":          uuid.NewString(),
	})
}

// invalid checks a request as Tavily does, returning its complaint or "".
func invalid(in wireRequest) string {
	switch {
	case in.Query == nil || strings.TrimSpace(*in.Query) == "":
		return "Query is missing."
	case len([]rune(*in.Query)) > 400:
		return "Query is too long. Max query length is 400 characters."
	case in.MaxResults != nil && (*in.MaxResults < 0 || *in.MaxResults > 20):
		return "max_results must be between 0 and 20."
	}
	switch in.SearchDepth {
	case "", "basic", "advanced", "fast", "ultra-fast":
	default:
		return "Invalid search depth. Must be one of basic, advanced, fast, ultra-fast."
	}
	return ""
}

// answer picks the scripted (or made-up) results for a request.
func (s *Server) answer(query string, include, exclude []string, limit int) []Result {
	s.mu.Lock()
	scripted, ok := s.results[queryKey(query)]
	generate := s.generate
	s.mu.Unlock()
	if !ok && generate {
		scripted = madeUp(query, include)
	}
	out := []Result{}
	for _, res := range scripted {
		if len(out) == limit {
			break
		}
		host := hostOf(res.URL)
		if (len(include) == 0 || underAny(host, include)) && !underAny(host, exclude) {
			out = append(out, res)
		}
	}
	return out
}

// madeUp is three results for an unscripted query, on the first requested domain if any.
func madeUp(query string, include []string) []Result {
	site := "example.com"
	if len(include) > 0 {
		site = include[0]
	}
	out := make([]Result, 3)
	for i := range out {
		out[i] = Result{
			Title:   fmt.Sprintf("%s — result %d (local fake search)", query, i+1),
			URL:     fmt.Sprintf("https://%s/fake-search/%d?q=%s", site, i+1, url.QueryEscape(query)),
			Content: fmt.Sprintf("Made-up result %d of the local fake search for %q. Set TAVILY_API_KEY and run without --fake-search for real results.", i+1, query),
			Score:   0.9 - 0.1*float64(i),
		}
	}
	return out
}

func queryKey(q string) string { return strings.ToLower(strings.Join(strings.Fields(q), " ")) }

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// underAny reports whether host is one of domains or below one of them.
func underAny(host string, domains []string) bool {
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if d != "" && (host == d || strings.HasSuffix(host, "."+d)) {
			return true
		}
	}
	return false
}

// writeDetail writes Tavily's error body.
func writeDetail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"detail": map[string]any{"error": msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
