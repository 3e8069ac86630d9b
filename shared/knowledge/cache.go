package knowledge

import (
	"slices"
	"sync"
	"time"
)

// defaultCacheEntries bounds the cache of one process (a Lambda instance serves one request at
// a time, so a few hundred recent lookups are plenty).
const defaultCacheEntries = 256

// cacheKey always holds the tenant: a result is never served to another tenant.
type cacheKey struct {
	tenantID, host, url, query string
}

type cacheEntry struct {
	result  Result
	expires time.Time
}

// cache keeps recent results for a short time. A nil *cache caches nothing.
type cache struct {
	mu      sync.Mutex
	ttl     time.Duration
	max     int
	entries map[cacheKey]cacheEntry
}

func newCache(ttl time.Duration, max int) *cache {
	return &cache{ttl: ttl, max: max, entries: make(map[cacheKey]cacheEntry)}
}

func (c *cache) get(k cacheKey, now time.Time) (Result, bool) {
	if c == nil {
		return Result{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || !now.Before(e.expires) {
		delete(c.entries, k)
		return Result{}, false
	}
	// The slices are copied in and out, so that a caller changing its result can't change the
	// cached one. Chunk metadata maps are shared: callers treat them as read-only.
	r := e.result
	r.Chunks, r.Citations = slices.Clone(r.Chunks), slices.Clone(r.Citations)
	return r, true
}

// put stores r; when full it drops expired entries and, if still full, an arbitrary one.
func (c *cache) put(k cacheKey, r Result, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		for key, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, key)
			}
		}
		for key := range c.entries {
			if len(c.entries) < c.max {
				break
			}
			delete(c.entries, key)
		}
	}
	r.Chunks, r.Citations = slices.Clone(r.Chunks), slices.Clone(r.Citations)
	c.entries[k] = cacheEntry{result: r, expires: now.Add(c.ttl)}
}
