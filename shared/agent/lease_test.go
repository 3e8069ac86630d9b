package agent

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/fakeclock"
	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/tasks"
)

// barrierLeases holds every LeaseTask until n have arrived, so that concurrent steps have all
// read the task before any of them takes the lease: a real race, not a sequence.
type barrierLeases struct {
	TaskStore
	arrived *sync.WaitGroup
}

func (b barrierLeases) LeaseTask(ctx context.Context, task tasks.Task, leaseID string, until time.Time) error {
	b.arrived.Done()
	b.arrived.Wait()
	return b.TaskStore.LeaseTask(ctx, task, leaseID, until)
}

// keyLookups counts the Idempotency-Key lookups and closes looked once n were made: then the
// requests sent at once have looked their key up, and those that are not first wait for its
// response (a request that comes later is answered from the stored response just the same).
type keyLookups struct {
	TaskStore
	n      int32
	count  *atomic.Int32
	looked chan struct{}
}

func newKeyLookups(s TaskStore, n int) keyLookups {
	return keyLookups{TaskStore: s, n: int32(n), count: new(atomic.Int32), looked: make(chan struct{})}
}

func (k keyLookups) GetIdempotency(ctx context.Context, tenantID, key string) (tasks.IdempotencyRecord, error) {
	rec, err := k.TaskStore.GetIdempotency(ctx, tenantID, key)
	if k.count.Add(1) == k.n {
		close(k.looked)
	}
	return rec, err
}

// interactAll runs the requests at once and returns their responses and errors.
func (f *fixture) interactAll(reqs []Request) ([]Response, []error) {
	resps, errs := make([]Response, len(reqs)), make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Go(func() { resps[i], errs[i] = f.engine.Interact(context.Background(), req) })
	}
	wg.Wait()
	return resps, errs
}

// TestConcurrentStepsMakeOneLLMCallPerStoredStep: of 20 concurrent steps on one task, one is
// stored and only it calls the LLM; the others get ErrConflict before any call.
func TestConcurrentStepsMakeOneLLMCallPerStoredStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.SetDefault(reply("Clicking.", "click(2)"))
	r := f.step(t, Request{})
	const n = 20
	var arrived sync.WaitGroup
	arrived.Add(n)
	f.engine.Tasks = barrierLeases{TaskStore: f.tasks, arrived: &arrived}
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Identity: alice, TaskID: r.TaskID, URL: "https://shop.example/", Query: "find wool socks", DOM: shopDOM}
	}
	_, errs := f.interactAll(reqs)
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrConflict):
			t.Errorf("concurrent step error = %v, want ErrConflict", err)
		}
	}
	task, _ := f.tasks.GetTask(context.Background(), alice.TenantID, r.TaskID)
	steps, _ := f.tasks.Steps(context.Background(), alice.TenantID, r.TaskID)
	sess, _ := f.chat.GetSession(context.Background(), alice.TenantID, r.SessionID)
	if ok != 1 || task.StepCount != 2 || len(steps) != 2 || sess.MessageCount != 3 {
		t.Errorf("%d won; task has %d steps (%d stored), session %d messages; want 1 winner, 2 steps, 3 messages", ok, task.StepCount, len(steps), sess.MessageCount)
	}
	if calls := f.llm.Calls(); calls != len(steps) {
		t.Errorf("LLM calls = %d for %d stored steps, want one call per stored step", calls, len(steps))
	}
	// The winner's commit ended the lease: the next step goes on.
	f.engine.Tasks = f.tasks
	if r2 := f.step(t, Request{TaskID: r.TaskID}); r2.CurrentStep != 3 {
		t.Errorf("step after the race = %+v, want step 3", r2)
	}
}

// TestConcurrentRetriesWithOneKey: 10 retries of one request sent at once, with one
// Idempotency-Key, make one LLM call and all get its response, for a new task and a step of an
// existing one.
func TestConcurrentRetriesWithOneKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.SetDefault(reply("Clicking.", "click(2)"))
	existing := f.step(t, Request{})
	fast := f.engine.LLM
	for name, taskID := range map[string]string{"a new task": "", "an existing task": existing.TaskID} {
		t.Run(name, func(t *testing.T) {
			before := f.llm.Calls()
			// The first request's LLM call lasts until all have looked their key up.
			lookups := newKeyLookups(f.tasks, 10)
			f.engine.Tasks, f.engine.LLM = lookups, llmtest.Held{Client: fast, Release: lookups.looked}
			reqs := make([]Request, 10)
			for i := range reqs {
				reqs[i] = Request{Identity: alice, TaskID: taskID, URL: "https://shop.example/", Query: "q", DOM: shopDOM,
					IdempotencyKey: "retry-" + name, RequestHash: "h"}
			}
			resps, errs := f.interactAll(reqs)
			for i, err := range errs {
				if err != nil || resps[i].TaskID != resps[0].TaskID || resps[i].CurrentStep != resps[0].CurrentStep {
					t.Errorf("retry %d = %+v, %v; want the response of the first (%s, step %d)", i, resps[i], err, resps[0].TaskID, resps[0].CurrentStep)
				}
			}
			if calls := f.llm.Calls() - before; calls != 1 {
				t.Errorf("LLM calls = %d, want 1", calls)
			}
		})
	}
}

// clockedLookups moves the engine's clock by step at every Idempotency-Key lookup, so that a
// wait for a twin ends after a few lookups rather than after seconds of the test's time.
type clockedLookups struct {
	TaskStore
	clock   *fakeclock.Clock
	step    time.Duration
	lookups *atomic.Int32
}

func (c clockedLookups) GetIdempotency(ctx context.Context, tenantID, key string) (tasks.IdempotencyRecord, error) {
	c.lookups.Add(1)
	defer c.clock.Advance(c.step)
	return c.TaskStore.GetIdempotency(ctx, tenantID, key)
}

// TestRetryWaitsOnlyBriefly: a retry whose twin stays in flight past the wait gets ErrConflict
// without calling the LLM, after looking for the twin's response more than once; another member
// using the same key is not the same request.
func TestRetryWaitsOnlyBriefly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.SetDefault(reply("Clicking.", "click(2)"))
	clock := fakeclock.New(time.Now())
	lookups := new(atomic.Int32)
	f.engine.Now = clock.Now
	f.engine.Tasks = clockedLookups{TaskStore: f.tasks, clock: clock, step: replayWait / 2, lookups: lookups}
	req := Request{Identity: alice, URL: "https://shop.example/", Query: "q", DOM: shopDOM, IdempotencyKey: "k", RequestHash: "h"}
	if err := f.tasks.ClaimIdempotency(context.Background(), alice.TenantID, ownKey(req), "h", "twin", clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.engine.Interact(context.Background(), req); !errors.Is(err, ErrConflict) || f.llm.Calls() != 0 {
		t.Errorf("retry while the twin is in flight: %v after %d LLM calls, want ErrConflict and none", err, f.llm.Calls())
	}
	// Each lookup takes half of replayWait on the engine's clock: the retry looks again once,
	// and gives up when the wait is over.
	if n := lookups.Load(); n != 2 {
		t.Errorf("the retry looked for the twin's response %d times, want 2 (it waits for the twin before giving up)", n)
	}
	req.Identity.UserID = "u-carol"
	if r := f.step(t, req); r.TaskID == "" {
		t.Errorf("another member's request with the same key = %+v, want its own step", r)
	}
}

// TestFailedStepReleasesWhatItHeld: an LLM failure leaves neither the task leased nor the key
// claimed, so the retry goes on at once.
func TestFailedStepReleasesWhatItHeld(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("Clicking.", "click(2)"))
	r := f.step(t, Request{})
	for range 3 {
		f.llm.Fail(500)
	}
	req := Request{Identity: alice, TaskID: r.TaskID, URL: "https://shop.example/", Query: "q", DOM: shopDOM, IdempotencyKey: "k", RequestHash: "h"}
	if _, err := f.engine.Interact(context.Background(), req); !errors.Is(err, ErrLLM) {
		t.Fatalf("step with a failing LLM: %v, want ErrLLM", err)
	}
	f.llm.Reply(reply("Clicking.", "click(2)"))
	if r2, err := f.engine.Interact(context.Background(), req); err != nil || r2.CurrentStep != 2 {
		t.Errorf("retry = %+v, %v; want step 2", r2, err)
	}
}
