package knowledge

import (
	"context"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"
)

// DomainLister returns a tenant's allowed-domain patterns.
type DomainLister interface {
	ListDomains(ctx context.Context, tenantID string) ([]Pattern, error)
}

// Source retrieves org knowledge for a page whose domain the tenant allows.
type Source interface {
	// Name says which source answered, for debug output: "builtin" or "external".
	Name() string
	Retrieve(ctx context.Context, r Request) (Retrieval, error)
}

// Request is one lookup of org knowledge. Host is the normalized host of URL.
type Request struct {
	TenantID string
	URL      string
	Host     string
	Query    string
}

// Retrieval is what a Source found. HasKnowledge says whether the tenant has any org knowledge
// for the host at all, which can be true while no chunk matched the query. Considered is how
// many chunks were ranked, where the source knows.
type Retrieval struct {
	Chunks       []Chunk
	Citations    []Citation
	HasKnowledge bool
	Considered   int
}

// Where a Result came from.
const (
	SourceNone     = "none" // the domain is not allowed: public knowledge only
	SourceBuiltIn  = "builtin"
	SourceExternal = "external"
)

// Result is the knowledge for a page. Chunks and Citations are never nil, so they encode as
// empty JSON arrays.
type Result struct {
	Domain          string
	HasOrgKnowledge bool
	Chunks          []Chunk
	Citations       []Citation
	Debug           Debug
}

// Debug describes how a Result was made; it is logged always and shown only in debug mode.
type Debug struct {
	Domain         string `json:"domain"`
	DomainMatched  bool   `json:"domainMatched"`
	MatchedPattern string `json:"matchedPattern,omitempty"`
	Source         string `json:"source"`
	ChunkCount     int    `json:"chunkCount"`
	Considered     int    `json:"chunksConsidered"`
	Cached         bool   `json:"cached"`
	DurationMs     int64  `json:"durationMs"`
}

// LogAttr is the debug data as one log attribute group, "knowledge". It has the domain but
// never the URL or the query, which may carry personal data.
func (d Debug) LogAttr() slog.Attr {
	return slog.Group("knowledge",
		slog.String("domain", d.Domain),
		slog.Bool("domainMatched", d.DomainMatched),
		slog.String("matchedPattern", d.MatchedPattern),
		slog.String("source", d.Source),
		slog.Int("chunkCount", d.ChunkCount),
		slog.Int("chunksConsidered", d.Considered),
		slog.Bool("cached", d.Cached),
		slog.Int64("durationMs", d.DurationMs),
	)
}

// Service resolves the knowledge for a page: the allowed-domain filter, then the source.
type Service struct {
	domains DomainLister
	source  Source
	cache   *cache
	// Now is the clock of timings and of the cache; tests replace it.
	Now func() time.Time
}

// NewService returns a Service that reads allowed domains from domains and org knowledge from
// source. A positive cacheTTL keeps results in memory per (tenant, domain, URL, query) for that
// long, so a task's steps on one page look up once; a change of allowed domains or documents
// shows after at most cacheTTL.
func NewService(domains DomainLister, source Source, cacheTTL time.Duration) *Service {
	s := &Service{domains: domains, source: source, Now: time.Now}
	if cacheTTL > 0 {
		s.cache = newCache(cacheTTL, defaultCacheEntries)
	}
	return s
}

// Resolve returns the knowledge for the page at rawURL, optionally narrowed by query, for a
// tenant (which must come from the verified token). A URL that is not an absolute http(s) URL
// or a query that is too long is a *ValidationError. A domain that the tenant does not allow
// is not an error: the Result has HasOrgKnowledge false and no chunks, and no org knowledge is
// read. Errors of the allowed-domain store or of the source are returned wrapped.
func (s *Service) Resolve(ctx context.Context, tenantID, rawURL, query string) (Result, error) {
	start := s.Now()
	host, err := HostOf(rawURL)
	if err != nil {
		return Result{}, err
	}
	if utf8.RuneCountInString(query) > MaxQueryLength {
		return Result{}, invalid("query", "must be at most 10000 characters")
	}
	key := cacheKey{tenantID: tenantID, host: host, url: rawURL, query: query}
	if r, ok := s.cache.get(key, start); ok {
		r.Debug.Cached = true
		r.Debug.DurationMs = s.Now().Sub(start).Milliseconds()
		return r, nil
	}
	patterns, err := s.domains.ListDomains(ctx, tenantID)
	if err != nil {
		return Result{}, fmt.Errorf("resolve knowledge: %w", err)
	}
	res := Result{Domain: host, Chunks: []Chunk{}, Citations: []Citation{}, Debug: Debug{Domain: host, Source: SourceNone}}
	if p, ok := BestMatch(patterns, host); ok {
		got, err := s.source.Retrieve(ctx, Request{TenantID: tenantID, URL: rawURL, Host: host, Query: query})
		if err != nil {
			return Result{}, fmt.Errorf("resolve knowledge from %s source: %w", s.source.Name(), err)
		}
		res.HasOrgKnowledge = got.HasKnowledge
		if got.Chunks != nil {
			res.Chunks = got.Chunks
		}
		if got.Citations != nil {
			res.Citations = got.Citations
		}
		res.Debug.DomainMatched, res.Debug.MatchedPattern = true, p.String()
		res.Debug.Source, res.Debug.Considered = s.source.Name(), got.Considered
	}
	res.Debug.ChunkCount = len(res.Chunks)
	s.cache.put(key, res, start)
	res.Debug.DurationMs = s.Now().Sub(start).Milliseconds()
	return res, nil
}
