package extraction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/tracing"
)

// DefaultTimeout bounds one call, well inside the 29 s a request has in all.
const DefaultTimeout = 5 * time.Second

// maxResponseBytes bounds what is read of an answer; top-k chunks are far smaller.
const maxResponseBytes = 4 << 20

// Client calls an external extraction service. It is a knowledge.Source.
type Client struct {
	endpoint string
	http     *http.Client
}

// NewClient returns a Client for the service at baseURL (an absolute http(s) URL, to which the
// contract's path is appended). A timeout of 0 means DefaultTimeout. Calls are traced.
func NewClient(baseURL string, timeout time.Duration) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("extraction service URL %q must be an absolute http(s) URL without a query", baseURL)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{
		endpoint: strings.TrimRight(baseURL, "/") + Path,
		http:     tracing.HTTPClient(&http.Client{Timeout: timeout}),
	}, nil
}

// Name is knowledge.SourceExternal.
func (c *Client) Name() string { return knowledge.SourceExternal }

// Retrieve asks the service for the tenant's knowledge for the URL and query. Anything but a
// 200 whose body follows the contract is an error: a non-2xx status, a timeout, or a body that
// isn't the schema's JSON. HasKnowledge is whether the service returned any chunk, since the
// contract has no other way to say that knowledge exists.
func (c *Client) Retrieve(ctx context.Context, r knowledge.Request) (knowledge.Retrieval, error) {
	q := url.Values{"url": {r.URL}}
	if r.Query != "" {
		q.Set("query", r.Query)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+"?"+q.Encode(), nil)
	if err != nil {
		return knowledge.Retrieval{}, fmt.Errorf("extraction service: %w", err)
	}
	req.Header.Set(TenantHeader, r.TenantID)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return knowledge.Retrieval{}, fmt.Errorf("extraction service: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return knowledge.Retrieval{}, fmt.Errorf("extraction service: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return knowledge.Retrieval{}, fmt.Errorf("extraction service: status %d%s", resp.StatusCode, errorDetail(body))
	}
	if len(body) > maxResponseBytes {
		return knowledge.Retrieval{}, fmt.Errorf("extraction service: answer larger than %d bytes", maxResponseBytes)
	}
	res, err := Decode(body)
	if err != nil {
		return knowledge.Retrieval{}, fmt.Errorf("extraction service: %w", err)
	}
	return knowledge.Retrieval{Chunks: res.Context, Citations: res.Citations, HasKnowledge: len(res.Context) > 0}, nil
}

// errorDetail quotes a contract error body, shortened, for the log; anything else is left out.
func errorDetail(body []byte) string {
	var e ErrorBody
	if json.Unmarshal(body, &e) != nil || e.Error == "" && e.Detail == "" {
		return ""
	}
	s := fmt.Sprintf(": %s: %s", e.Error, e.Detail)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// The schema's types with every field's presence visible, for validation.
type (
	wireResponse struct {
		Context   *[]wireChunk    `json:"context"`
		Citations *[]wireCitation `json:"citations"`
	}
	wireChunk struct {
		ID            *string        `json:"id"`
		Content       *string        `json:"content"`
		DocumentTitle *string        `json:"documentTitle"`
		Metadata      map[string]any `json:"metadata"`
	}
	wireCitation struct {
		DocumentID    *string  `json:"documentId"`
		DocumentTitle *string  `json:"documentTitle"`
		Section       *string  `json:"section"`
		Page          *float64 `json:"page"`
	}
)

// ErrInvalidResponse is a 200 body that doesn't follow the schema.
var ErrInvalidResponse = errors.New("invalid response")

// Decode validates a 200 body against the schema (§3.6): context is a required array of
// chunks with string id, content and documentTitle and an optional object metadata; citations
// is an optional array with string documentId and documentTitle, an optional string section
// and an optional number page. Unknown fields are ignored, so the service may add some. A page
// that is not a whole number from 1 up is dropped, since nothing can cite it.
func Decode(body []byte) (Response, error) {
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return Response{}, fmt.Errorf("%w: %v", ErrInvalidResponse, err)
	}
	if w.Context == nil {
		return Response{}, fmt.Errorf("%w: context is missing", ErrInvalidResponse)
	}
	res := Response{Context: make([]knowledge.Chunk, len(*w.Context)), Citations: []knowledge.Citation{}}
	for i, c := range *w.Context {
		if c.ID == nil || c.Content == nil || c.DocumentTitle == nil {
			return Response{}, fmt.Errorf("%w: context[%d] lacks id, content or documentTitle", ErrInvalidResponse, i)
		}
		res.Context[i] = knowledge.Chunk{ID: *c.ID, Content: *c.Content, DocumentTitle: *c.DocumentTitle, Metadata: c.Metadata}
	}
	if w.Citations != nil {
		for i, c := range *w.Citations {
			if c.DocumentID == nil || c.DocumentTitle == nil {
				return Response{}, fmt.Errorf("%w: citations[%d] lacks documentId or documentTitle", ErrInvalidResponse, i)
			}
			cite := knowledge.Citation{DocumentID: *c.DocumentID, DocumentTitle: *c.DocumentTitle}
			if c.Section != nil {
				cite.Section = *c.Section
			}
			if c.Page != nil && *c.Page >= 1 && *c.Page == math.Trunc(*c.Page) && *c.Page <= math.MaxInt32 {
				cite.Page = int(*c.Page)
			}
			res.Citations = append(res.Citations, cite)
		}
	}
	return res, nil
}
