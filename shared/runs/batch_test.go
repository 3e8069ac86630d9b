package runs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/runs"
)

// checkout is a form page: three fields, a checkbox and the payment button.
var checkout = &runs.Snapshot{URL: "https://tickets.example/booking", Title: "Your details", Elements: []runs.Element{
	{ID: "agent-1", Tag: "input", Placeholder: "Name"},
	{ID: "agent-2", Tag: "input", Placeholder: "Email"},
	{ID: "agent-3", Tag: "input", Placeholder: "City"},
	{ID: "agent-4", Tag: "input", Type: "checkbox", AriaLabel: "I accept the terms"},
	{ID: "agent-5", Tag: "button", Text: "Continue"},
	{ID: "agent-6", Tag: "button", Text: "Pay now"},
}}

const fillAndContinue = `{"type":"tool_calls","thought":"Fill the form.","tools":[
{"name":"type","arguments":{"id":"agent-1","text":"Ada"}},
{"name":"type","arguments":{"id":"agent-2","text":"ada@example.com"}},
{"name":"type","arguments":{"id":"agent-3","text":"Lyon"}},
{"name":"click","arguments":{"id":"agent-4"}},
{"name":"click","arguments":{"id":"agent-5"}}]}`

// startWith starts a run whose client declared actionBatch when batch is true.
func (f *fixture) startWith(t *testing.T, mode runs.Mode, batch bool) string {
	t.Helper()
	resp, err := f.svc.Start(context.Background(), runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: "Buy the ticket", Mode: mode, Batch: batch})
	if err != nil {
		t.Fatal(err)
	}
	return resp.RunID
}

func names(ts []runs.ToolView) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name+":"+t.Parameters["id"].(string))
	}
	return out
}

func TestRunBatchAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		batch     bool
		wantTools []string // nil: the answer has no tools field
	}{
		{"with the capability the whole batch comes back", true, []string{"type:agent-1", "type:agent-2", "type:agent-3", "click:agent-4", "click:agent-5"}},
		{"without it only the first call", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			id := f.startWith(t, runs.ModeCareful, tt.batch)
			f.llm.Reply(fillAndContinue)
			r := f.step(t, id, checkout, nil)
			if r.Action != runs.ActionExecuteTool || r.Tool == nil || r.Tool.Name != "type" || r.Tool.Parameters["id"] != "agent-1" {
				t.Fatalf("answer = %+v, want execute_tool with the first call (type agent-1)", r)
			}
			if got := names(r.Tools); strings.Join(got, ",") != strings.Join(tt.wantTools, ",") {
				t.Errorf("tools = %v, want %v", got, tt.wantTools)
			}
			if f.llm.Calls() != 1 {
				t.Errorf("LLM calls = %d, want 1", f.llm.Calls())
			}
			if explained := strings.Contains(f.llm.Requests()[0].System(), "tool_calls"); explained != (tt.wantTools != nil) {
				t.Errorf("system prompt explains tool_calls: %v, want %v", explained, tt.wantTools != nil)
			}
		})
	}
}

func TestRunBatchRefusedParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reply, wantErr string
	}{
		{"a submit in the middle", `{"type":"tool_calls","tools":[{"name":"click","arguments":{"id":"agent-5"}},{"name":"type","arguments":{"id":"agent-1","text":"x"}}]}`, "only be the last"},
		{"typing with submit in the middle", `{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"x","submit":true}},{"name":"type","arguments":{"id":"agent-2","text":"y"}}]}`, "only be the last"},
		{"finish in a batch", `{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"x"}},{"name":"finish","arguments":{"answer":"done"}}]}`, "cannot be part of a batch"},
		{"an element the page lacks", `{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"x"}},{"name":"click","arguments":{"id":"agent-99"}}]}`, "tool 2 of the batch"},
		{"eleven calls", `{"type":"tool_calls","tools":[` + strings.Repeat(`{"name":"observe"},`, 10) + `{"name":"observe"}]}`, "at most 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runs.ParseReply(tt.reply, checkout)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseReply() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestRunBatchGateCutsBeforeTheHeldCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	id := f.startWith(t, runs.ModeCareful, true)
	f.llm.Reply(`{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"Ada"}},{"name":"click","arguments":{"id":"agent-4"}},{"name":"click","arguments":{"id":"agent-6"}}]}`)
	held := f.step(t, id, checkout, nil)
	if held.Action != runs.ActionAskUser || held.Question == "" || held.Tools != nil || held.State.Status != runs.StatusWaitingUser {
		t.Fatalf("answer = %+v, want the step to ask before the payment click, with no calls to run", held)
	}
	if held.ConfirmationID == "" {
		t.Fatalf("held = %+v, want a confirmation id for the held click", held)
	}
	approved, err := f.svc.Answer(ctx, runs.AnswerRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Approved: true, ConfirmationID: held.ConfirmationID})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(approved.Tools); strings.Join(got, ",") != "type:agent-1,click:agent-4,click:agent-6" || approved.Tool.Parameters["id"] != "agent-1" {
		t.Errorf("approved = %+v (tools %v), want the batch up to and including the held click", approved, got)
	}
}

func TestRunBatchAutonomousRunsWholeWithAWarning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.startWith(t, runs.ModeAutonomous, true)
	f.llm.Reply(`{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"Ada"}},{"name":"click","arguments":{"id":"agent-6"}}]}`)
	r := f.step(t, id, checkout, nil)
	if r.Action != runs.ActionExecuteTool || len(r.Tools) != 2 {
		t.Fatalf("answer = %+v, want both calls in autonomous mode", r)
	}
	got, err := f.svc.Get(context.Background(), "ten-a", "u-1", id)
	if err != nil || len(got.State.History) != 1 || !strings.Contains(got.State.History[0].Warning, "autonomous") || len(got.State.History[0].Tools) != 2 {
		t.Errorf("history = %+v, %v; want one step with its two calls and the gate's warning", got.State.History, err)
	}
}

func TestRunBatchOutcomesReachThePromptAndHistory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	id := f.startWith(t, runs.ModeCareful, true)
	f.llm.Reply(fillAndContinue)
	f.llm.Reply(`{"type":"final","answer":"done"}`)
	f.step(t, id, checkout, nil)
	parts := []runs.Result{{Success: true}, {Success: false, Error: "field is read-only"}, {Skipped: true}, {Skipped: true}, {Skipped: true}}
	if _, err := f.svc.Step(ctx, runs.StepRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Snapshot: checkout, LastActionResults: parts}); err != nil {
		t.Fatal(err)
	}
	prompt := f.llm.Requests()[1].User()
	for _, want := range []string{`batch: type {"id":"agent-1","text":"Ada"} + type {"id":"agent-2"`, `type {"id":"agent-2","text":"ada@example.com"} → "Failed: field is read-only"`, `click {"id":"agent-5"} → not run`} {
		if !strings.Contains(prompt, want) {
			t.Errorf("second prompt lacks %q:\n%s", want, prompt)
		}
	}
	got, err := f.svc.Get(ctx, "ten-a", "u-1", id)
	if err != nil || len(got.State.History) != 2 {
		t.Fatalf("Get() = %+v, %v; want 2 steps", got.State.History, err)
	}
	if h := got.State.History[0]; len(h.Tools) != 5 || !strings.Contains(h.Observation, "Failed: field is read-only") {
		t.Errorf("history[0] = %+v, want the batch as one step with its 5 calls and each outcome", h)
	}
}

func TestRunBatchReplayReturnsTheWholeAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	id := f.startWith(t, runs.ModeCareful, true)
	f.llm.Reply(fillAndContinue)
	req := runs.StepRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Snapshot: checkout, IdempotencyKey: "k1", RequestHash: "h"}
	first, err := f.svc.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.Step(ctx, req)
	if err != nil || !again.Metrics.Replayed || strings.Join(names(again.Tools), ",") != strings.Join(names(first.Tools), ",") || len(again.Tools) != 5 {
		t.Errorf("replay = %+v, %v; want the stored batch of 5 calls", again, err)
	}
	if f.llm.Calls() != 1 {
		t.Errorf("LLM calls = %d, want 1", f.llm.Calls())
	}
}
