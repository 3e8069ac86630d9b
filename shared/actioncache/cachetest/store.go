// Package cachetest is test support for the action cache: Store keeps entries in memory and
// behaves like cachedb where the cache relies on it (whole entries replaced, expiry, deletes of
// one revision), so the cache and the engines that use it are tested without DynamoDB; Contract
// is the behaviour both stores are held to, run against each so that they cannot drift.
package cachetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/screenagent/backend/shared/actioncache"
)

// Store is an in-memory actioncache.Store. The zero value is not usable: use New.
type Store struct {
	// Now is the store's clock (time.Now by default): an entry past its ExpiresAt is gone.
	Now func() time.Time

	mu      sync.Mutex
	entries map[string]stored
}

// stored is an entry as cachedb keeps it: the steps as one JSON document, expiry in whole seconds.
type stored struct {
	entry   actioncache.Entry // without Steps
	steps   []byte
	expires int64
}

var _ actioncache.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store { return &Store{entries: map[string]stored{}} }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func entryKey(tenantID, key string) string { return tenantID + "\x00" + key }

// GetEntry reads a live entry; an absent or expired one is actioncache.ErrNotFound.
func (s *Store) GetEntry(_ context.Context, tenantID, key string) (actioncache.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.entries[entryKey(tenantID, key)]
	if !ok || st.expires <= s.now().Unix() {
		return actioncache.Entry{}, actioncache.ErrNotFound
	}
	e := st.entry
	if err := json.Unmarshal(st.steps, &e.Steps); err != nil {
		return actioncache.Entry{}, fmt.Errorf("decode steps: %w", err)
	}
	return e, nil
}

// PutEntry writes the entry whole, replacing any version of it.
func (s *Store) PutEntry(_ context.Context, e actioncache.Entry) error {
	steps, err := json.Marshal(e.Steps)
	if err != nil {
		return fmt.Errorf("encode cache entry: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Steps = nil
	e.UpdatedAt, e.ExpiresAt = e.UpdatedAt.UTC(), time.Unix(e.ExpiresAt.Unix(), 0).UTC()
	s.entries[entryKey(e.TenantID, e.Key)] = stored{entry: e, steps: steps, expires: e.ExpiresAt.Unix()}
	return nil
}

// DeleteEntry removes the entry if it still has this revision (any revision when revision is
// ""); an entry absent or of another revision is actioncache.ErrNotFound and stays.
func (s *Store) DeleteEntry(_ context.Context, tenantID, key, revision string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := entryKey(tenantID, key)
	if st, ok := s.entries[k]; revision != "" && (!ok || st.entry.Revision != revision) {
		return actioncache.ErrNotFound
	}
	delete(s.entries, k)
	return nil
}
