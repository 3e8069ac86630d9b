package runs_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/runs"
)

// leaseConflicts closes met once n leases were refused because the run was held: the requests
// sent at once have met the first one's lease (a request that comes later is answered from the
// stored response just the same).
type leaseConflicts struct {
	runs.Store
	n     int32
	count atomic.Int32
	met   chan struct{}
}

func (l *leaseConflicts) Lease(ctx context.Context, run runs.Run, leaseID string, until time.Time) error {
	err := l.Store.Lease(ctx, run, leaseID, until)
	if errors.Is(err, runs.ErrConflict) && l.count.Add(1) == l.n {
		close(l.met)
	}
	return err
}

// TestConcurrentRetriesWithOneKey: retries of a step sent while the first is in flight, with its
// Idempotency-Key and body, wait and get its response; the model is called once.
func TestConcurrentRetriesWithOneKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.step(t, id, nil, nil)
	f.llm.SetDefault(toolCall("click", `{"id":"agent-1"}`))
	const n = 6
	// The first request's LLM call lasts until the others have met its lease: they wait for it.
	conflicts := &leaseConflicts{Store: f.svc.Store, n: n - 1, met: make(chan struct{})}
	f.svc.Store, f.svc.LLM = conflicts, llmtest.Held{Client: f.svc.LLM, Release: conflicts.met}
	resps, errs := make([]runs.StepResponse, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resps[i], errs[i] = f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Snapshot: page,
				LastActionResult: success, IdempotencyKey: "retry", RequestHash: "h"})
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || resps[i].Action != runs.ActionExecuteTool || resps[i].State.CurrentStep != 2 {
			t.Errorf("retry %d = %+v, %v; want the click at step 2", i, resps[i], errs[i])
		}
	}
	if calls := f.llm.Calls(); calls != 1 {
		t.Errorf("LLM calls = %d, want 1", calls)
	}
}
