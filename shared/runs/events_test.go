package runs_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/runs"
)

// published is an Events that keeps what each step opens and sends.
type published struct {
	mu     sync.Mutex
	tenant []string
	events []realtime.Event
}

func (p *published) Open(_ context.Context, tenantID string, t realtime.Topic) realtime.Stream {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tenant = append(p.tenant, tenantID+"/"+t.Key())
	return p
}

func (p *published) Send(_ context.Context, events ...realtime.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, events...)
}

// Every committed transition of a run, a step or an answer, tells the run's subscribers what it
// does and the run's status; a step that commits nothing tells nothing.
func TestRunStepEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pub := &published{}
	f.svc.Events = pub
	id := f.start(t, runs.ModeCareful)
	f.llm.Reply(toolCall("click", `{"id":"agent-1"}`))
	f.llm.Reply(`{"type":"ask_user","question":"Which plan?"}`)

	f.step(t, id, nil, nil)
	f.step(t, id, page, success)
	f.step(t, id, page, success)
	if _, err := f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Snapshot: page}); err == nil {
		t.Fatal("a step while the run waits for the user succeeded")
	}
	want := []realtime.Event{
		realtime.RunStep{RunID: id, Step: 1, Action: runs.ActionExecuteTool, Tool: "observe", Status: string(runs.StatusRunning)},
		realtime.RunStep{RunID: id, Step: 2, Action: runs.ActionExecuteTool, Tool: "click", Status: string(runs.StatusRunning)},
		realtime.RunStep{RunID: id, Step: 3, Action: runs.ActionAskUser, Status: string(runs.StatusWaitingUser)},
	}
	if !slices.Equal(pub.events, want) {
		t.Errorf("events\n%+v\nwant\n%+v", pub.events, want)
	}
	if topic := "ten-a/run#" + id; len(pub.tenant) != 3 || pub.tenant[0] != topic {
		t.Errorf("opened %v, want the tenant's run topic %s once per committed step", pub.tenant, topic)
	}
}
