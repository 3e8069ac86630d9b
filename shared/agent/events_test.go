package agent

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/tasks"
)

// recorder is an Events that keeps what a step opens and sends, and how many model calls had
// been made when each event was sent.
type recorder struct {
	mu       sync.Mutex
	opened   []realtime.Topic
	sent     []realtime.Event
	llmCalls []int
	calls    func() int
}

func (r *recorder) Open(_ context.Context, tenantID string, t realtime.Topic) realtime.Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opened = append(r.opened, t)
	return r
}

func (r *recorder) Send(_ context.Context, events ...realtime.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range events {
		r.sent = append(r.sent, e)
		r.llmCalls = append(r.llmCalls, r.calls())
	}
}

func (r *recorder) take() ([]realtime.Topic, []realtime.Event, []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, s, c := r.opened, r.sent, r.llmCalls
	r.opened, r.sent, r.llmCalls = nil, nil, nil
	return o, s, c
}

func TestStepEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := &recorder{calls: func() int { return len(f.llm.Requests()) }}
	f.engine.Events = rec

	f.llm.Reply(reply("Search first.", `setValue(1, "wool socks")`))
	r1 := f.step(t, Request{})
	if opened, sent, _ := rec.take(); len(opened) != 0 || len(sent) != 0 {
		t.Errorf("first step: opened %v, sent %v; want nothing (nobody can watch a session made by this step)", opened, sent)
	}

	f.llm.Reply("<Thought>Plan it.</Thought><Plan>1. Search for wool socks\n2. Open the first result</Plan><Step>1</Step>" +
		"<Extract>brand = Woolly\nsaved = " + pagemodel.Mask + "\nPasswort = hunter22</Extract><Action>click(2)</Action>")
	next := Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}}
	f.step(t, next)
	opened, sent, calls := rec.take()
	sid, tid := r1.SessionID, r1.TaskID
	want := []realtime.Event{
		realtime.StepProgress{SessionID: sid, TaskID: tid, CurrentStep: 2, StepStatus: realtime.StepExecuting},
		realtime.StepProgress{SessionID: sid, TaskID: tid, CurrentStep: 1, TotalSteps: 2, StepDescription: "Search for wool socks", StepStatus: realtime.StepExecuting},
		realtime.StepProgress{SessionID: sid, TaskID: tid, CurrentStep: 2, TotalSteps: 2, StepDescription: "Open the first result", StepStatus: realtime.StepPending},
		realtime.VariableExtracted{SessionID: sid, TaskID: tid, Key: "brand", Value: "Woolly"},
	}
	if !slices.Equal(opened, []realtime.Topic{realtime.Session(sid)}) {
		t.Errorf("step 2 opened %v, want the session once", opened)
	}
	if !slices.Equal(sent, want) {
		t.Errorf("step 2 sent\n%+v\nwant\n%+v", sent, want)
	}
	if len(calls) > 0 && calls[0] != 1 {
		t.Errorf("the executing announcement was sent after %d model calls, want 1 (before this step's)", calls[0])
	}

	f.llm.Reply("<Thought>Done.</Thought><Step>2</Step><Action>finish(\"found\")</Action>")
	f.step(t, next)
	_, sent, _ = rec.take()
	want = []realtime.Event{
		realtime.StepProgress{SessionID: sid, TaskID: tid, CurrentStep: 1, TotalSteps: 2, StepDescription: "Search for wool socks", StepStatus: realtime.StepExecuting},
		realtime.StepProgress{SessionID: sid, TaskID: tid, CurrentStep: 1, TotalSteps: 2, StepDescription: "Search for wool socks", StepStatus: realtime.StepCompleted},
		realtime.StepProgress{SessionID: sid, TaskID: tid, CurrentStep: 2, TotalSteps: 2, StepDescription: "Open the first result", StepStatus: realtime.StepCompleted},
		realtime.TaskStatus{SessionID: sid, TaskID: tid, Status: string(tasks.StatusCompleted)},
	}
	if !slices.Equal(sent, want) {
		t.Errorf("step 3 sent\n%+v\nwant\n%+v", sent, want)
	}
}

func TestStepEventsAskingTheUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rec := &recorder{calls: func() int { return 0 }}
	f.engine.Events = rec
	f.llm.Reply(reply("Search first.", `setValue(1, "wool socks")`))
	r1 := f.step(t, Request{})
	f.llm.Reply(reply("Which size?", `askUser("Which size do you wear?")`))
	f.step(t, Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}})
	_, sent, _ := rec.take()
	last := sent[len(sent)-1]
	if want := (realtime.TaskStatus{SessionID: r1.SessionID, TaskID: r1.TaskID, Status: StatusNeedsUserInput, UserQuestion: "Which size do you wear?"}); last != want {
		t.Errorf("last event = %+v, want %+v", last, want)
	}
}
