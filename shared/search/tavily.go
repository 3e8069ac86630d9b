package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/httpretry"
	"github.com/screenagent/backend/shared/tracing"
)

// Defaults of Options.
const (
	DefaultBaseURL = "https://api.tavily.com"
	// DefaultSearchDepth costs one API credit; "advanced" costs two and takes seconds longer.
	DefaultSearchDepth = "basic"
	// DefaultAttemptTimeout: a basic search answers in one to two seconds.
	DefaultAttemptTimeout = 8 * time.Second
	DefaultBackoff        = 300 * time.Millisecond
)

// Limits of Tavily's search API.
const (
	// DefaultMaxResults is Tavily's own default.
	DefaultMaxResults = 5
	// MaxQueryLength is the longest query Tavily accepts, in characters.
	MaxQueryLength = 400
	// MaxResultsLimit is the largest max_results Tavily accepts.
	MaxResultsLimit = 20
)

const (
	// maxAttempts is the first call and two retries.
	maxAttempts = 3
	// minAttempt is the least time worth starting a search with.
	minAttempt = 300 * time.Millisecond
	// maxRetryAfter: a search is an aid inside a step's deadline; a longer wait ends the retries.
	maxRetryAfter = 5 * time.Second
	// maxResponseBytes bounds what is read of a response; twenty results with their snippets
	// take a few tens of kilobytes.
	maxResponseBytes = 4 << 20
	// Bounds of one result's fields, which also keep a cached set of results far below
	// DynamoDB's item size limit.
	maxTitleLength   = 300
	maxURLLength     = 2048
	maxContentLength = 2000
	// maxDetailLength bounds the service's error message quoted in errors.
	maxDetailLength = 200
)

// Options configure a Client.
type Options struct {
	// BaseURL defaults to DefaultBaseURL; the client posts to BaseURL + "/search".
	BaseURL string
	APIKey  string
	// SearchDepth is Tavily's search_depth; default DefaultSearchDepth.
	SearchDepth string
	// HTTPClient defaults to a traced http.Client.
	HTTPClient *http.Client
	// AttemptTimeout bounds each HTTP call, inside the context's deadline.
	AttemptTimeout time.Duration
	// Backoff is the base delay before the first retry; it doubles for the second, with jitter.
	Backoff time.Duration
}

// Client calls Tavily's search API (POST /search, the key as a bearer token).
type Client struct {
	endpoint string
	key      string
	depth    string
	http     *http.Client
	retry    httpretry.Policy
}

// NewClient returns a client for o.
func NewClient(o Options) (*Client, error) {
	base := strings.TrimRight(cmpOr(o.BaseURL, DefaultBaseURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("search: base URL must be an absolute http(s) URL, got %q", o.BaseURL)
	}
	if strings.TrimSpace(o.APIKey) == "" {
		return nil, fmt.Errorf("%w: no API key", ErrNotConfigured)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = tracing.HTTPClient(&http.Client{})
	}
	return &Client{
		endpoint: base + "/search",
		key:      strings.TrimSpace(o.APIKey),
		depth:    cmpOr(o.SearchDepth, DefaultSearchDepth),
		http:     hc,
		retry: httpretry.Policy{
			MaxAttempts:    maxAttempts,
			AttemptTimeout: positiveOr(o.AttemptTimeout, DefaultAttemptTimeout),
			MinAttempt:     minAttempt,
			Backoff:        positiveOr(o.Backoff, DefaultBackoff),
			MaxRetryAfter:  maxRetryAfter,
		},
	}, nil
}

// Query is one call of the search API. No IncludeDomains means the open web.
type Query struct {
	Query          string
	IncludeDomains []string
	MaxResults     int
}

// wireRequest is the body of POST /search.
type wireRequest struct {
	Query             string   `json:"query"`
	SearchDepth       string   `json:"search_depth"`
	MaxResults        int      `json:"max_results"`
	IncludeDomains    []string `json:"include_domains,omitempty"`
	IncludeAnswer     bool     `json:"include_answer"`
	IncludeRawContent bool     `json:"include_raw_content"`
	IncludeImages     bool     `json:"include_images"`
}

// wireResponse is the part of the answer the client reads.
type wireResponse struct {
	Results []struct {
		Title   string  `json:"title"`
		URL     string  `json:"url"`
		Content string  `json:"content"`
		Score   float64 `json:"score"`
	} `json:"results"`
}

// Search runs q, retrying twice on 429, 5xx, timeouts and connection errors with exponential
// backoff and jitter (or the server's Retry-After when longer, up to 5 s). No attempt starts
// that could not get 300 ms before ctx's deadline. Errors match ErrUnavailable.
func (c *Client) Search(ctx context.Context, q Query) ([]Item, error) {
	body, err := json.Marshal(wireRequest{
		Query: q.Query, SearchDepth: c.depth, MaxResults: resultCount(q.MaxResults), IncludeDomains: q.IncludeDomains,
	})
	if err != nil {
		return nil, &Error{Err: err}
	}
	var items []Item
	attempts, last := c.retry.Do(ctx, func(ctx context.Context, timeout time.Duration) *httpretry.Failure {
		var f *httpretry.Failure
		items, f = c.attempt(ctx, body, timeout)
		return f
	})
	if last != nil {
		return nil, &Error{StatusCode: last.Status, Attempts: attempts, Err: last.Err}
	}
	return items, nil
}

// attempt makes one HTTP call bounded by timeout.
func (c *Client) attempt(ctx context.Context, body []byte, timeout time.Duration) ([]Item, *httpretry.Failure) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &httpretry.Failure{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.key)
	res, err := c.http.Do(req)
	if err != nil {
		return nil, httpretry.FromError(ctx, err, timeout)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes+1))
	if err != nil {
		return nil, httpretry.FromError(ctx, err, timeout)
	}
	if res.StatusCode != http.StatusOK {
		f := httpretry.FromStatus(res.StatusCode, res.Header)
		if d := c.detail(data); d != "" {
			f.Err = fmt.Errorf("%w: %s", f.Err, d)
		}
		return nil, f
	}
	if len(data) > maxResponseBytes {
		return nil, &httpretry.Failure{Err: errors.New("response larger than 4 MiB")}
	}
	var out wireResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, &httpretry.Failure{Err: errors.New("response is not a search result")}
	}
	items := make([]Item, 0, len(out.Results))
	for _, r := range out.Results {
		u := clean(r.URL, maxURLLength)
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			continue
		}
		items = append(items, Item{
			Title: clean(r.Title, maxTitleLength), URL: u, Content: clean(r.Content, maxContentLength), Score: r.Score,
		})
	}
	return items, nil
}

// detail is Tavily's error message ({"detail": {"error": "..."}}, or a plain string), short,
// on one line, and without the key should the service ever quote it.
func (c *Client) detail(body []byte) string {
	var doc struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &doc) != nil || len(doc.Detail) == 0 {
		return ""
	}
	var msg string
	var obj struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(doc.Detail, &obj) == nil {
		msg = obj.Error
	} else if json.Unmarshal(doc.Detail, &msg) != nil {
		return ""
	}
	msg = strings.ReplaceAll(msg, c.key, "[key]")
	return clean(strings.Join(strings.Fields(msg), " "), maxDetailLength)
}

// clean makes a field of a response safe to keep: valid UTF-8, trimmed, at most n bytes, cut at
// a character boundary.
func clean(s string, n int) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// resultCount is how many results to ask for: n within [1, MaxResultsLimit], 0 meaning
// DefaultMaxResults.
func resultCount(n int) int {
	if n <= 0 {
		return DefaultMaxResults
	}
	return min(n, MaxResultsLimit)
}

func cmpOr(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}

func positiveOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
