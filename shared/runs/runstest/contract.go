package runstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/fakeclock"
	"github.com/screenagent/backend/shared/runs"
)

// NewStore makes an empty store that reads the time from now and keeps runs for
// runs.DefaultRetention.
type NewStore func(t *testing.T, now func() time.Time) runs.Store

// Contract checks what the run service relies on of a store: conditional saves that happen at
// most once and all or nothing, idempotency records, leases, the history's order and idle expiry.
// runsdb's tests run it against DynamoDB Local and this package's against Store.
func Contract(t *testing.T, newStore NewStore) {
	for name, check := range map[string]func(*testing.T, runs.Store, *fakeclock.Clock){
		"create and get":                 createAndGet,
		"a save happens at most once":    saveOnce,
		"a failed save writes nothing":   saveAllOrNothing,
		"an idempotency key is recorded": idempotency,
		"a lease is exclusive":           leases,
		"entries come oldest first":      entriesInOrder,
		"an idle run expires":            idleExpiry,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := fakeclock.New(time.Now().UTC().Truncate(time.Second))
			check(t, newStore(t, clock.Now), clock)
		})
	}
}

var ctx = context.Background()

func created(t *testing.T, s runs.Store, id string) runs.Run {
	t.Helper()
	r, err := s.Create(ctx, runs.Run{ID: id, TenantID: "ten-a", UserID: "u-1", Task: "find socks", Mode: runs.ModeCareful, Status: runs.StatusCreated, MaxSteps: 10})
	if err != nil {
		t.Fatalf("Create(%s) error = %v", id, err)
	}
	return r
}

// step is run after one more step, with its entry.
func step(r runs.Run) (runs.Run, *runs.Entry) {
	next := r
	next.Status, next.CurrentStep = runs.StatusRunning, r.CurrentStep+1
	return next, &runs.Entry{StepNumber: next.CurrentStep, Action: "scroll", Thought: "step"}
}

func createAndGet(t *testing.T, s runs.Store, _ *fakeclock.Clock) {
	r := created(t, s, "run-1")
	got, err := s.Get(ctx, "ten-a", "run-1")
	if err != nil || got.ID != r.ID || got.UserID != "u-1" || got.Task != "find socks" || got.Status != runs.StatusCreated || got.MaxSteps != 10 {
		t.Errorf("Get = %+v, %v; want the created run", got, err)
	}
	if _, err := s.Create(ctx, r); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("Create of an existing id: error = %v, want ErrConflict", err)
	}
	for _, key := range [][2]string{{"ten-b", "run-1"}, {"ten-a", "run-2"}} {
		if _, err := s.Get(ctx, key[0], key[1]); !errors.Is(err, runs.ErrNotFound) {
			t.Errorf("Get(%s, %s) error = %v, want ErrNotFound", key[0], key[1], err)
		}
	}
}

func saveOnce(t *testing.T, s runs.Store, _ *fakeclock.Clock) {
	r := created(t, s, "run-1")
	next, entry := step(r)
	if err := s.Save(ctx, r, next, entry, nil); err != nil {
		t.Fatalf("Save error = %v", err)
	}
	// A second request that read the same run loses: the run changed since.
	if err := s.Save(ctx, r, next, entry, nil); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("Save from a stale read: error = %v, want ErrConflict", err)
	}
	got, _ := s.Get(ctx, "ten-a", "run-1")
	entries, _ := s.Entries(ctx, "ten-a", "run-1", 0)
	if got.CurrentStep != 1 || got.Status != runs.StatusRunning || len(entries) != 1 {
		t.Errorf("after two saves of one step: step %d, %s, %d entries; want step 1, running, 1 entry", got.CurrentStep, got.Status, len(entries))
	}
}

func saveAllOrNothing(t *testing.T, s runs.Store, _ *fakeclock.Clock) {
	r := created(t, s, "run-1")
	next, entry := step(r)
	if err := s.Save(ctx, r, next, entry, nil); err != nil {
		t.Fatal(err)
	}
	cur, _ := s.Get(ctx, "ten-a", "run-1")
	// The header's condition holds but the entry exists: nothing is written, the key included.
	again := cur
	again.Status = runs.StatusCompleted
	idem := &runs.IdempotencyRecord{Scope: runs.ScopeStep, Key: "k", RequestHash: "h", Body: []byte(`{}`)}
	if err := s.Save(ctx, cur, again, entry, idem); !errors.Is(err, runs.ErrConflict) {
		t.Fatalf("Save of an entry written before: error = %v, want ErrConflict", err)
	}
	got, _ := s.Get(ctx, "ten-a", "run-1")
	if got.Status != runs.StatusRunning {
		t.Errorf("run after the failed save = %s, want running (unchanged)", got.Status)
	}
	if _, err := s.GetIdempotency(ctx, "ten-a", "run-1", runs.ScopeStep, "k"); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("key after the failed save: error = %v, want ErrNotFound (not recorded)", err)
	}
}

func idempotency(t *testing.T, s runs.Store, _ *fakeclock.Clock) {
	r := created(t, s, "run-1")
	next, entry := step(r)
	idem := &runs.IdempotencyRecord{Scope: runs.ScopeStep, Key: "k", RequestHash: "h", Body: []byte(`{"action":"execute_tool"}`)}
	if err := s.Save(ctx, r, next, entry, idem); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetIdempotency(ctx, "ten-a", "run-1", runs.ScopeStep, "k")
	if err != nil || rec.RequestHash != "h" || string(rec.Body) != string(idem.Body) {
		t.Errorf("GetIdempotency = %+v, %v; want the recorded response", rec, err)
	}
	if _, err := s.GetIdempotency(ctx, "ten-a", "run-1", runs.ScopeAnswer, "k"); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("the key under another scope: error = %v, want ErrNotFound", err)
	}
	// A twin with the same key that read the run after the first save still loses on the key.
	cur, _ := s.Get(ctx, "ten-a", "run-1")
	after, entry2 := step(cur)
	if err := s.Save(ctx, cur, after, entry2, idem); !errors.Is(err, runs.ErrIdempotencyRace) {
		t.Errorf("Save with a recorded key: error = %v, want ErrIdempotencyRace", err)
	}
}

func leases(t *testing.T, s runs.Store, clock *fakeclock.Clock) {
	r := created(t, s, "run-1")
	until := clock.Now().Add(time.Minute)
	if err := s.Lease(ctx, r, "first", until); err != nil {
		t.Fatalf("Lease error = %v", err)
	}
	if err := s.Lease(ctx, r, "second", until); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("Lease of a held run: error = %v, want ErrConflict", err)
	}
	if err := s.Release(ctx, "ten-a", "run-1", "second"); err != nil {
		t.Errorf("Release by a non-holder: error = %v, want none (a no-op)", err)
	}
	if err := s.Lease(ctx, r, "second", until); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("Lease after a non-holder's release: error = %v, want ErrConflict (still held)", err)
	}
	if err := s.Release(ctx, "ten-a", "run-1", "first"); err != nil {
		t.Fatal(err)
	}
	if err := s.Lease(ctx, r, "second", until); err != nil {
		t.Errorf("Lease after the holder's release: error = %v, want none", err)
	}
	next, entry := step(r)
	if err := s.Save(ctx, r, next, entry, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Lease(ctx, next, "third", until); err != nil {
		t.Errorf("Lease after a save: error = %v, want none (the save ended the lease)", err)
	}
	clock.Advance(2 * time.Minute)
	if err := s.Lease(ctx, next, "fourth", clock.Now().Add(time.Minute)); err != nil {
		t.Errorf("Lease after the holder's lapsed: error = %v, want none", err)
	}
}

func entriesInOrder(t *testing.T, s runs.Store, _ *fakeclock.Clock) {
	r := created(t, s, "run-1")
	for range 4 {
		next, entry := step(r)
		if err := s.Save(ctx, r, next, entry, nil); err != nil {
			t.Fatal(err)
		}
		r, _ = s.Get(ctx, "ten-a", "run-1")
	}
	for _, tc := range []struct{ last, want, first int }{{0, 4, 1}, {2, 2, 3}, {10, 4, 1}} {
		entries, err := s.Entries(ctx, "ten-a", "run-1", tc.last)
		if err != nil || len(entries) != tc.want || entries[0].StepNumber != tc.first || entries[len(entries)-1].StepNumber != 4 {
			t.Errorf("Entries(last %d) = %d entries from step %d, %v; want %d from step %d to 4", tc.last, len(entries), firstStep(entries), err, tc.want, tc.first)
		}
	}
}

func firstStep(entries []runs.Entry) int {
	if len(entries) == 0 {
		return 0
	}
	return entries[0].StepNumber
}

func idleExpiry(t *testing.T, s runs.Store, clock *fakeclock.Clock) {
	r := created(t, s, "run-1")
	clock.Advance(runs.DefaultRetention.Idle - time.Minute)
	if _, err := s.Get(ctx, "ten-a", "run-1"); err != nil {
		t.Errorf("Get within the idle time: error = %v, want the run", err)
	}
	clock.Advance(2 * time.Minute)
	if _, err := s.Get(ctx, "ten-a", "run-1"); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("Get past the idle time: error = %v, want ErrNotFound", err)
	}
	next, entry := step(r)
	if err := s.Save(ctx, r, next, entry, nil); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("Save of an expired run: error = %v, want ErrConflict", err)
	}
}
