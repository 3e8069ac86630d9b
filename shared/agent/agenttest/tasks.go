// Package agenttest is test support for the interact engine: Tasks, Chat and Writer keep a
// task's state, its session and its steps' commits in memory and behave like tasksdb, chatdb
// and agentdb where the engine relies on them (conditional commits, idempotency records and
// claims, leases, step alignment, debug entries, expiry), so the engine's logic is tested in
// milliseconds without DynamoDB; Contract is the behaviour both sets of stores are held to, run
// against each so that they cannot drift.
package agenttest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
)

// Tasks is an in-memory tasks store (tasksdb.Store). The zero value is not usable: use NewTasks.
type Tasks struct {
	// Retention sets what is written; Now is the store's clock (time.Now by default). Like the
	// table's TTL, expiry is in whole seconds and an item past it reads as absent.
	Retention tasks.Retention
	Now       func() time.Time

	mu      sync.Mutex
	headers map[string]*header
	steps   map[string]map[int]stored[tasks.Step]
	debug   map[string][]debugRecord // by tenant
	checks  map[string]map[int]stored[tasks.Verification]
	fixes   map[string][]stored[tasks.Correction]
	idem    map[string]idemRecord
}

type header struct {
	task    tasks.Task
	expires int64
	// leaseID holds the task until leaseUntil; a commit replaces the header and so ends it.
	leaseID    string
	leaseUntil time.Time
}

type stored[T any] struct {
	value   T
	expires int64
}

// debugRecord is a debug entry as the table keeps it: its data as a document, so that it reads
// back as the table's does (numbers as float64).
type debugRecord struct {
	entry   tasks.DebugEntry // without Data
	data    []byte
	expires int64
	// sortKey orders a tenant's entries as the table does: by creation time, then id.
	sortKey string
}

type idemRecord struct {
	rec     tasks.IdempotencyRecord
	claimID string
	expires int64
}

// NewTasks returns an empty store that keeps what it writes as r says.
func NewTasks(r tasks.Retention) *Tasks {
	return &Tasks{
		Retention: r, headers: map[string]*header{}, steps: map[string]map[int]stored[tasks.Step]{},
		debug: map[string][]debugRecord{}, checks: map[string]map[int]stored[tasks.Verification]{},
		fixes: map[string][]stored[tasks.Correction]{}, idem: map[string]idemRecord{},
	}
}

func (s *Tasks) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// live reports whether an item expiring at exp (epoch seconds) is still there.
func (s *Tasks) live(exp int64) bool { return exp > s.now().Unix() }

func taskKey(tenantID, taskID string) string { return tenantID + "\x00" + taskID }

// GetTask returns the tenant's task; another tenant's or an expired task is tasks.ErrNotFound.
func (s *Tasks) GetTask(_ context.Context, tenantID, taskID string) (tasks.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.headers[taskKey(tenantID, taskID)]
	if !ok || !s.live(h.expires) {
		return tasks.Task{}, tasks.ErrNotFound
	}
	return detach(h.task)
}

// Steps returns the task's live steps in order.
func (s *Tasks) Steps(_ context.Context, tenantID, taskID string) ([]tasks.Step, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byIndex := s.steps[taskKey(tenantID, taskID)]
	out := make([]tasks.Step, 0, len(byIndex))
	for _, i := range slices.Sorted(maps.Keys(byIndex)) {
		if st := byIndex[i]; s.live(st.expires) {
			step, err := detach(st.value)
			if err != nil {
				return nil, err
			}
			out = append(out, step)
		}
	}
	return out, nil
}

// FailTask marks an active, live task failed with a reason; a task whose step count or status
// changed since task was read is tasks.ErrConflict. It leaves a lease in place.
func (s *Tasks) FailTask(_ context.Context, task tasks.Task, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.headers[taskKey(task.TenantID, task.ID)]
	if !ok || !s.unchanged(h, task) {
		return tasks.ErrConflict
	}
	now := s.now()
	h.task.Status, h.task.FailureReason, h.task.UpdatedAt = tasks.StatusFailed, reason, now
	h.expires = now.Add(s.Retention.Finished).Unix()
	return nil
}

// unchanged is the condition of every write on a task read before: still active, live and at
// the step count it was read with.
func (s *Tasks) unchanged(h *header, read tasks.Task) bool {
	return h.task.StepCount == read.StepCount && h.task.Status == tasks.StatusActive && s.live(h.expires)
}

// AlignSteps raises the expiry of the task's steps to the task's own; a task that is gone
// changes nothing.
func (s *Tasks) AlignSteps(_ context.Context, tenantID, taskID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := taskKey(tenantID, taskID)
	h, ok := s.headers[k]
	if !ok {
		return nil
	}
	for i, st := range s.steps[k] {
		if st.expires < h.expires {
			st.expires = h.expires
			s.steps[k][i] = st
		}
	}
	return nil
}

func idemKey(tenantID, key string) string { return tenantID + "\x00" + key }

// GetIdempotency returns the record stored under the tenant's key, or tasks.ErrNotFound.
func (s *Tasks) GetIdempotency(_ context.Context, tenantID, key string) (tasks.IdempotencyRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.idem[idemKey(tenantID, key)]
	if !ok || !s.live(r.expires) {
		return tasks.IdempotencyRecord{}, tasks.ErrNotFound
	}
	rec := r.rec
	rec.Body = slices.Clone(rec.Body)
	return rec, nil
}

// ClaimIdempotency records that a request with the key and requestHash is deciding its response
// until until; a key with a live record (a response or another claim) is tasks.ErrIdempotencyRace.
func (s *Tasks) ClaimIdempotency(_ context.Context, tenantID, key, requestHash, claimID string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idemKey(tenantID, key)
	if r, ok := s.idem[k]; ok && s.live(r.expires) {
		return tasks.ErrIdempotencyRace
	}
	s.idem[k] = idemRecord{
		rec:     tasks.IdempotencyRecord{Key: key, RequestHash: requestHash, Pending: true, CreatedAt: s.now()},
		claimID: claimID, expires: until.Unix(),
	}
	return nil
}

// ReleaseIdempotency removes the claim claimID made on the key, when it is still that pending claim.
func (s *Tasks) ReleaseIdempotency(_ context.Context, tenantID, key, claimID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idemKey(tenantID, key)
	if r, ok := s.idem[k]; ok && r.rec.Pending && r.claimID == claimID {
		delete(s.idem, k)
	}
	return nil
}

// LeaseTask holds the task for leaseID until until, provided it is still active, live and at
// the step count it was read with and no unexpired lease is on it; otherwise tasks.ErrConflict.
func (s *Tasks) LeaseTask(_ context.Context, task tasks.Task, leaseID string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.headers[taskKey(task.TenantID, task.ID)]
	// Lease times are kept in milliseconds, as the table keeps them.
	if !ok || !s.unchanged(h, task) || h.leaseID != "" && h.leaseUntil.UnixMilli() > s.now().UnixMilli() {
		return fmt.Errorf("lease task %s: %w", task.ID, tasks.ErrConflict)
	}
	h.leaseID, h.leaseUntil = leaseID, until
	return nil
}

// ReleaseTask ends the lease leaseID holds on the task, if it still does.
func (s *Tasks) ReleaseTask(_ context.Context, tenantID, taskID, leaseID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.headers[taskKey(tenantID, taskID)]; ok && h.leaseID == leaseID {
		h.leaseID, h.leaseUntil = "", time.Time{}
	}
	return nil
}

// PutDebug stores a debug entry on its own.
func (s *Tasks) PutDebug(_ context.Context, tenantID string, e tasks.DebugEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.debugRecord(e)
	if err != nil {
		return err
	}
	s.debug[tenantID] = append(s.debug[tenantID], rec)
	return nil
}

// debugRecord is the record of an entry, kept for the debug retention from its creation.
func (s *Tasks) debugRecord(e tasks.DebugEntry) (debugRecord, error) {
	data, err := json.Marshal(e.Data)
	if err != nil {
		return debugRecord{}, fmt.Errorf("encode debug entry: %w", err)
	}
	e.Data, e.CreatedAt = nil, e.CreatedAt.UTC()
	return debugRecord{entry: e, data: data, expires: e.CreatedAt.Add(s.Retention.Debug).Unix(), sortKey: dynamo.Sortable(e.CreatedAt) + "#" + e.ID}, nil
}

// ListDebug returns the tenant's live debug entries matching f, newest first, at most f.Limit
// (100 when not set).
func (s *Tasks) ListDebug(_ context.Context, tenantID string, f tasks.DebugFilter) ([]tasks.DebugEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := slices.Clone(s.debug[tenantID])
	slices.SortFunc(recs, func(a, b debugRecord) int { return cmp.Compare(b.sortKey, a.sortKey) })
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	var out []tasks.DebugEntry
	for _, r := range recs {
		e := r.entry
		switch {
		case len(out) == limit:
			return out, nil
		case !s.live(r.expires), f.TaskID != "" && e.TaskID != f.TaskID, f.LogType != "" && e.LogType != f.LogType,
			!f.Since.IsZero() && r.sortKey < dynamo.Sortable(f.Since):
			continue
		}
		if err := json.Unmarshal(r.data, &e.Data); err != nil {
			return nil, fmt.Errorf("decode debug entry %s: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Verifications returns the task's live verification records in step order.
func (s *Tasks) Verifications(_ context.Context, tenantID, taskID string) ([]tasks.Verification, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byStep := s.checks[taskKey(tenantID, taskID)]
	var out []tasks.Verification
	for _, i := range slices.Sorted(maps.Keys(byStep)) {
		if r := byStep[i]; s.live(r.expires) {
			v, err := detach(r.value)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// Corrections returns the task's live correction records in step order, then time.
func (s *Tasks) Corrections(_ context.Context, tenantID, taskID string) ([]tasks.Correction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := slices.Clone(s.fixes[taskKey(tenantID, taskID)])
	slices.SortStableFunc(recs, func(a, b stored[tasks.Correction]) int {
		return cmp.Or(cmp.Compare(a.value.StepIndex, b.value.StepIndex), a.value.CreatedAt.Compare(b.value.CreatedAt))
	})
	var out []tasks.Correction
	for _, r := range recs {
		if s.live(r.expires) {
			c, err := detach(r.value)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// detach is a deep copy of v, so that neither the caller changing what it got nor the store
// changing what it keeps reaches the other (a database read returns a copy too). Like a stored
// item, it keeps no empty slice or map apart from a nil one.
func detach[T any](v T) (T, error) {
	var buf bytes.Buffer
	var out T
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return out, fmt.Errorf("agenttest: copy %T: %w", v, err)
	}
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		return out, fmt.Errorf("agenttest: copy %T: %w", v, err)
	}
	return out, nil
}
