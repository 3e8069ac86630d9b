package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MinDomainResults is the fewest results a domain-restricted search must find to be kept; with
// fewer, the search is widened to the open web (SERVER_SIDE_AGENT_ARCH.md §4.7).
const MinDomainResults = 3

// DefaultCacheTTL is how long results are reused: long enough to serve a task's repeated
// searches and a tenant's users asking alike, short enough to stay current.
const DefaultCacheTTL = 15 * time.Minute

// Backend runs one call of the search service; *Client is the real one.
type Backend interface {
	Search(ctx context.Context, q Query) ([]Item, error)
}

// Cache keeps results per tenant under a key until they expire; searchdb.Store keeps them in
// DynamoDB so that every Lambda instance shares them. Get treats expired results as absent.
type Cache interface {
	Get(ctx context.Context, tenantID, key string) (Results, bool, error)
	Put(ctx context.Context, tenantID, key string, r Results, expiresAt time.Time) error
}

// Searcher is the search service of the engines.
type Searcher struct {
	Backend Backend
	// Cache may be nil: every search then calls the Backend.
	Cache Cache
	// TTL defaults to DefaultCacheTTL.
	TTL time.Duration
	// Logger receives cache failures and a failed widening, which do not fail the search;
	// nil discards them.
	Logger *slog.Logger
	Now    func() time.Time
}

// NewSearcher returns a Searcher with the default TTL.
func NewSearcher(b Backend, c Cache, logger *slog.Logger) *Searcher {
	return &Searcher{Backend: b, Cache: c, TTL: DefaultCacheTTL, Logger: logger, Now: time.Now}
}

// Search answers req from the tenant's cache or the Backend. The query is trimmed, its spaces
// collapsed and cut to MaxQueryLength characters. The search is first restricted to the page's
// registrable domain; when that finds fewer than MinDomainResults results (or fewer than asked
// for, when fewer are asked for), it is repeated on the open web, whose results follow the
// domain's own. Should that second call fail, the domain's results are kept (and not cached).
//
// Errors match ErrInvalidQuery for a request without query or tenant, and ErrUnavailable when
// the service gave nothing; the engine logs them and goes on without results.
func (s *Searcher) Search(ctx context.Context, req Request) (Results, error) {
	q := prepareQuery(req.Query)
	switch {
	case q == "":
		return Results{}, fmt.Errorf("%w: the query is empty", ErrInvalidQuery)
	case req.TenantID == "":
		return Results{}, fmt.Errorf("%w: no tenant", ErrInvalidQuery)
	}
	n := resultCount(req.MaxResults)
	domain := RegistrableDomain(req.PageURL)
	key := CacheKey(q, domain, n)
	log := s.logger().With("tenantId", req.TenantID, "taskId", req.TaskID)

	if s.Cache != nil {
		r, ok, err := s.Cache.Get(ctx, req.TenantID, key)
		switch {
		case err != nil:
			log.WarnContext(ctx, "search cache read failed; searching", "error", err.Error())
		case ok:
			r.Cached = true
			return r, nil
		}
	}
	r, complete, err := s.search(ctx, log, q, domain, n)
	if err != nil {
		return r, err
	}
	if complete && s.Cache != nil {
		ttl := s.TTL
		if ttl <= 0 {
			ttl = DefaultCacheTTL
		}
		if err := s.Cache.Put(ctx, req.TenantID, key, r, s.now().Add(ttl)); err != nil {
			log.WarnContext(ctx, "search cache write failed", "error", err.Error())
		}
	}
	return r, nil
}

// search calls the Backend: the domain first when there is one, then the open web if needed.
// complete is false when a failed widening left only the domain's results.
func (s *Searcher) search(ctx context.Context, log *slog.Logger, q, domain string, n int) (r Results, complete bool, err error) {
	r = Results{Query: q, Domain: domain, Scope: ScopeWeb, Items: []Item{}}
	var own []Item
	if domain != "" {
		if own, err = s.Backend.Search(ctx, Query{Query: q, IncludeDomains: []string{domain}, MaxResults: n}); err != nil {
			return r, false, err
		}
		if len(own) >= min(MinDomainResults, n) {
			r.Scope, r.Items = ScopeDomain, own
			return r, true, nil
		}
	}
	web, err := s.Backend.Search(ctx, Query{Query: q, MaxResults: n})
	if err != nil {
		if len(own) == 0 {
			return r, false, err
		}
		log.WarnContext(ctx, "widening the search to the open web failed; keeping the domain's results",
			"domain", domain, "results", len(own), "error", err.Error())
		r.Scope, r.Items = ScopeDomain, own
		return r, false, nil
	}
	r.Items = merge(own, web, n)
	return r, true, nil
}

// merge lists first's items, then second's that are not among them, up to n.
func merge(first, second []Item, n int) []Item {
	out := make([]Item, 0, min(len(first)+len(second), n))
	seen := map[string]bool{}
	for _, it := range append(append([]Item(nil), first...), second...) {
		if len(out) == n {
			break
		}
		if !seen[it.URL] {
			seen[it.URL] = true
			out = append(out, it)
		}
	}
	return out
}

// CacheKey identifies a search within a tenant: the query as compared (case and spacing
// ignored), the domain it is restricted to first, and the number of results asked for.
func CacheKey(query, domain string, maxResults int) string {
	sum := sha256.Sum256([]byte(strings.ToLower(prepareQuery(query)) + "\n" + domain + "\n" + strconv.Itoa(resultCount(maxResults))))
	return hex.EncodeToString(sum[:])
}

// prepareQuery trims a query, collapses its whitespace and cuts it to MaxQueryLength
// characters, at a space when there is one in its second half.
func prepareQuery(q string) string {
	q = strings.Join(strings.Fields(strings.ToValidUTF8(q, "")), " ")
	if utf8.RuneCountInString(q) <= MaxQueryLength {
		return q
	}
	q = prefix(q, MaxQueryLength)
	if sp := strings.LastIndexByte(q, ' '); sp > len(q)/2 {
		q = q[:sp]
	}
	return q
}

func (s *Searcher) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func (s *Searcher) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}
