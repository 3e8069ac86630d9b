package cachetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/fakeclock"
)

// NewStore makes an empty store that reads the time from now.
type NewStore func(t *testing.T, now func() time.Time) actioncache.Store

// Contract checks what the action cache relies on of a store: entries read back as written,
// per tenant and key, replaced whole, gone once expired, and deleted only in the revision the
// deleter read. cachedb's tests run it against DynamoDB Local and this package's against Store.
func Contract(t *testing.T, newStore NewStore) {
	for name, check := range map[string]func(*testing.T, actioncache.Store, *fakeclock.Clock){
		"an entry reads back as written":   roundTrip,
		"a put replaces the entry whole":   replace,
		"an expired entry is gone":         expiry,
		"a delete takes only its revision": deletes,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The clock only moves forward from the real time: DynamoDB Local deletes items past
			// their expiry by the real clock.
			clock := fakeclock.New(time.Now().UTC().Truncate(time.Second))
			check(t, newStore(t, clock.Now), clock)
		})
	}
}

var ctx = context.Background()

// entry is a learned entry of key, living for a day from now.
func entry(key, revision string, now time.Time) actioncache.Entry {
	return actioncache.Entry{
		TenantID: "ten-a", Key: key, Task: "open the settings", Runs: 2, Revision: revision, LearnedFrom: "task-1",
		Steps: []actioncache.Step{
			{Page: "p1", Part: actioncache.Part{Action: "click(1)", Name: "click", Target: &actioncache.Target{Signature: 1<<63 + 5, Tag: "a"}}, Next: "p2"},
			{Page: "p2", Part: actioncache.Part{Action: "finish()", Name: "finish", Kind: actioncache.Completes},
				Answer: &actioncache.Answer{Parts: []string{"Dark mode is ", "."}, Facts: []actioncache.Fact{{Before: "Mode: "}}}},
		},
		UpdatedAt: now.Add(123 * time.Nanosecond), ExpiresAt: now.Add(24*time.Hour + 500*time.Millisecond),
	}
}

func put(t *testing.T, s actioncache.Store, e actioncache.Entry) {
	t.Helper()
	if err := s.PutEntry(ctx, e); err != nil {
		t.Fatalf("PutEntry(%s) error = %v", e.Key, err)
	}
}

func roundTrip(t *testing.T, s actioncache.Store, clock *fakeclock.Clock) {
	want := entry("k1", "r1", clock.Now())
	put(t, s, want)
	got, err := s.GetEntry(ctx, "ten-a", "k1")
	if err != nil {
		t.Fatalf("GetEntry error = %v", err)
	}
	if got.TenantID != "ten-a" || got.Key != "k1" || got.Task != want.Task || got.Runs != 2 || got.Revision != "r1" || got.LearnedFrom != "task-1" {
		t.Errorf("GetEntry = %+v; want the entry written", got)
	}
	if !got.UpdatedAt.Equal(want.UpdatedAt) || !got.ExpiresAt.Equal(want.ExpiresAt.Truncate(time.Second)) {
		t.Errorf("times = updated %v, expires %v; want %v and %v (whole seconds)", got.UpdatedAt, got.ExpiresAt, want.UpdatedAt, want.ExpiresAt.Truncate(time.Second))
	}
	if len(got.Steps) != 2 || got.Steps[0].Target == nil || got.Steps[0].Target.Signature != 1<<63+5 || got.Steps[0].Next != "p2" ||
		got.Steps[1].Kind != actioncache.Completes || got.Steps[1].Answer == nil || got.Steps[1].Answer.Facts[0].Before != "Mode: " {
		t.Errorf("steps = %+v; want the steps written", got.Steps)
	}
	for _, key := range [][2]string{{"ten-b", "k1"}, {"ten-a", "k2"}} {
		if _, err := s.GetEntry(ctx, key[0], key[1]); !errors.Is(err, actioncache.ErrNotFound) {
			t.Errorf("GetEntry(%s, %s) error = %v, want actioncache.ErrNotFound", key[0], key[1], err)
		}
	}
}

func replace(t *testing.T, s actioncache.Store, clock *fakeclock.Clock) {
	put(t, s, entry("k1", "r1", clock.Now()))
	next := entry("k1", "r2", clock.Now())
	next.Steps, next.Runs, next.LearnedFrom = next.Steps[:1], 1, ""
	put(t, s, next)
	got, err := s.GetEntry(ctx, "ten-a", "k1")
	if err != nil || got.Revision != "r2" || len(got.Steps) != 1 || got.Runs != 1 || got.LearnedFrom != "" {
		t.Errorf("GetEntry after a second put = %+v, %v; want only the second version", got, err)
	}
}

func expiry(t *testing.T, s actioncache.Store, clock *fakeclock.Clock) {
	e := entry("k1", "r1", clock.Now())
	e.ExpiresAt = clock.Now().Add(time.Hour)
	put(t, s, e)
	clock.Advance(time.Hour - time.Second)
	if _, err := s.GetEntry(ctx, "ten-a", "k1"); err != nil {
		t.Errorf("GetEntry a second before expiry: error = %v, want the entry", err)
	}
	clock.Advance(time.Second)
	if _, err := s.GetEntry(ctx, "ten-a", "k1"); !errors.Is(err, actioncache.ErrNotFound) {
		t.Errorf("GetEntry at its expiry: error = %v, want actioncache.ErrNotFound", err)
	}
}

func deletes(t *testing.T, s actioncache.Store, clock *fakeclock.Clock) {
	put(t, s, entry("k1", "r2", clock.Now()))
	if err := s.DeleteEntry(ctx, "ten-a", "k1", "r1"); !errors.Is(err, actioncache.ErrNotFound) {
		t.Errorf("DeleteEntry of an older revision: error = %v, want actioncache.ErrNotFound", err)
	}
	if _, err := s.GetEntry(ctx, "ten-a", "k1"); err != nil {
		t.Errorf("entry after a delete of an older revision: error = %v, want it kept", err)
	}
	if err := s.DeleteEntry(ctx, "ten-b", "k1", "r2"); !errors.Is(err, actioncache.ErrNotFound) {
		t.Errorf("DeleteEntry from another tenant: error = %v, want actioncache.ErrNotFound", err)
	}
	if err := s.DeleteEntry(ctx, "ten-a", "k1", "r2"); err != nil {
		t.Errorf("DeleteEntry of its revision: error = %v, want none", err)
	}
	if _, err := s.GetEntry(ctx, "ten-a", "k1"); !errors.Is(err, actioncache.ErrNotFound) {
		t.Errorf("entry after its delete: error = %v, want actioncache.ErrNotFound", err)
	}
	put(t, s, entry("k2", "r1", clock.Now()))
	for _, key := range []string{"k2", "k-absent"} {
		if err := s.DeleteEntry(ctx, "ten-a", key, ""); err != nil {
			t.Errorf("DeleteEntry(%s) of any revision: error = %v, want none", key, err)
		}
	}
	if _, err := s.GetEntry(ctx, "ten-a", "k2"); !errors.Is(err, actioncache.ErrNotFound) {
		t.Errorf("entry after a delete of any revision: error = %v, want actioncache.ErrNotFound", err)
	}
}
