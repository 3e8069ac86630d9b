package runs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/runs"
)

// TestConcurrentRetriesWithOneKey: retries of a step sent while the first is in flight, with its
// Idempotency-Key and body, wait and get its response; the model is called once.
func TestConcurrentRetriesWithOneKey(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.step(t, id, nil, nil)
	f.llm.SetDefault(toolCall("click", `{"id":"agent-1"}`))
	f.svc.LLM = slowLLM{Client: f.svc.LLM, delay: 300 * time.Millisecond}
	const n = 6
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
