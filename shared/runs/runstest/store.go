// Package runstest is test support for the run API: Store keeps runs in memory and behaves like
// runsdb where the service relies on it (conditional saves, leases, idempotency records,
// expiry), so the service's logic is tested in milliseconds without DynamoDB; Contract is the
// behaviour both stores are held to, run against each so that they cannot drift.
package runstest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/screenagent/backend/shared/runs"
)

// Store is an in-memory runs.Store. The zero value is not usable: use New.
type Store struct {
	Retention runs.Retention
	// Now is the store's clock (time.Now by default): a run idle past Retention.Idle is gone.
	Now func() time.Time

	mu      sync.Mutex
	headers map[string]header
	entries map[string][]stored[runs.Entry]
	idem    map[string]stored[runs.IdempotencyRecord]
	leases  map[string]lease
}

type header struct {
	run     runs.Run
	expires time.Time
}

type stored[T any] struct {
	value   T
	expires time.Time
}

type lease struct {
	id    string
	until time.Time
}

var _ runs.Store = (*Store)(nil)

// New returns an empty store keeping runs for r.
func New(r runs.Retention) *Store {
	return &Store{
		Retention: r, headers: map[string]header{}, entries: map[string][]stored[runs.Entry]{},
		idem: map[string]stored[runs.IdempotencyRecord]{}, leases: map[string]lease{},
	}
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func runKey(tenantID, runID string) string { return tenantID + "\x00" + runID }

func idemKey(tenantID, runID, scope, key string) string {
	return runKey(tenantID, runID) + "\x00" + scope + "\x00" + key
}

// Create stores a new run, stamped now; an existing id is runs.ErrConflict.
func (s *Store) Create(_ context.Context, r runs.Run) (runs.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := runKey(r.TenantID, r.ID)
	if _, ok := s.headers[k]; ok {
		return runs.Run{}, fmt.Errorf("create run %s: %w", r.ID, runs.ErrConflict)
	}
	r.CreatedAt = s.now()
	r.UpdatedAt = r.CreatedAt
	s.headers[k] = header{run: detach(r), expires: s.Retention.ExpiresAt(r.Status, r.UpdatedAt)}
	return r, nil
}

// Get returns the tenant's run; a missing or expired run is runs.ErrNotFound.
func (s *Store) Get(_ context.Context, tenantID, runID string) (runs.Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.live(runKey(tenantID, runID))
	if !ok {
		return runs.Run{}, runs.ErrNotFound
	}
	return detach(h.run), nil
}

func (s *Store) live(k string) (header, bool) {
	h, ok := s.headers[k]
	return h, ok && h.expires.After(s.now())
}

// Entries returns the run's last entries (all when last is 0), oldest first.
func (s *Store) Entries(_ context.Context, tenantID, runID string, last int) ([]runs.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []runs.Entry
	for _, e := range s.entries[runKey(tenantID, runID)] {
		if e.expires.After(s.now()) {
			out = append(out, e.value)
		}
	}
	if last > 0 && len(out) > last {
		out = out[len(out)-last:]
	}
	return out, nil
}

// Save replaces prev with next, appends entry and records idem, all or nothing: a recorded key
// is runs.ErrIdempotencyRace; a run whose step or status is no longer prev's, an expired run or
// an entry already written is runs.ErrConflict. It ends the run's lease.
func (s *Store) Save(_ context.Context, prev, next runs.Run, entry *runs.Entry, idem *runs.IdempotencyRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	k := runKey(next.TenantID, next.ID)
	if idem != nil {
		if rec, ok := s.idem[idemKey(next.TenantID, next.ID, idem.Scope, idem.Key)]; ok && rec.expires.After(now) {
			return fmt.Errorf("save run %s: %w", next.ID, runs.ErrIdempotencyRace)
		}
	}
	h, ok := s.live(k)
	if !ok || h.run.CurrentStep != prev.CurrentStep || h.run.Status != prev.Status {
		return fmt.Errorf("save run %s at step %d: %w", next.ID, next.CurrentStep, runs.ErrConflict)
	}
	if entry != nil && slices.ContainsFunc(s.entries[k], func(e stored[runs.Entry]) bool { return e.value.StepNumber == entry.StepNumber }) {
		return fmt.Errorf("save run %s at step %d: %w", next.ID, next.CurrentStep, runs.ErrConflict)
	}
	next.UpdatedAt = now
	s.headers[k] = header{run: detach(next), expires: s.Retention.ExpiresAt(next.Status, now)}
	if entry != nil {
		e := *entry
		e.CreatedAt = now
		s.entries[k] = append(s.entries[k], stored[runs.Entry]{value: e, expires: now.Add(s.Retention.EntryLifetime(next.MaxSteps))})
	}
	if idem != nil {
		rec := *idem
		rec.Body = slices.Clone(idem.Body)
		s.idem[idemKey(next.TenantID, next.ID, idem.Scope, idem.Key)] = stored[runs.IdempotencyRecord]{value: rec, expires: now.Add(s.Retention.Idempotency)}
	}
	delete(s.leases, k)
	return nil
}

// GetIdempotency returns the response recorded under the run, scope and key, or runs.ErrNotFound.
func (s *Store) GetIdempotency(_ context.Context, tenantID, runID, scope, key string) (runs.IdempotencyRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.idem[idemKey(tenantID, runID, scope, key)]
	if !ok || !rec.expires.After(s.now()) {
		return runs.IdempotencyRecord{}, runs.ErrNotFound
	}
	out := rec.value
	out.Body = slices.Clone(out.Body)
	return out, nil
}

// Lease holds the run for leaseID until until; a run held by an unexpired lease is
// runs.ErrConflict, whoever holds it.
func (s *Store) Lease(_ context.Context, run runs.Run, leaseID string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := runKey(run.TenantID, run.ID)
	if l, ok := s.leases[k]; ok && l.until.After(s.now()) {
		return fmt.Errorf("lease run %s: %w", run.ID, runs.ErrConflict)
	}
	s.leases[k] = lease{id: leaseID, until: until}
	return nil
}

// Release ends the lease leaseID holds on the run, if it still does.
func (s *Store) Release(_ context.Context, tenantID, runID, leaseID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := runKey(tenantID, runID)
	if l, ok := s.leases[k]; ok && l.id == leaseID {
		delete(s.leases, k)
	}
	return nil
}

// detach copies the run's slices, so that a caller changing its copy in place does not change
// what is stored (a database read returns a copy too).
func detach(r runs.Run) runs.Run {
	r.PendingTools = slices.Clone(r.PendingTools)
	r.Reflections = slices.Clone(r.Reflections)
	r.SecretNames = slices.Clone(r.SecretNames)
	r.CacheTrail = slices.Clone(r.CacheTrail)
	return r
}
