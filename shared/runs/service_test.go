package runs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/dynamotest"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/llm/provider"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runsdb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

type fixture struct {
	svc   *runs.Service
	store *runsdb.Store
	llm   *llmtest.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := dynamotest.New(t)
	fake := llmtest.New(t)
	client, err := provider.New(provider.Options{BaseURL: fake.URL(), Model: "test-model", APIKey: "test-key", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	store := runsdb.New(db.Client, db.Tables["TasksTable"])
	return &fixture{svc: &runs.Service{Store: store, LLM: client, Model: "test-model"}, store: store, llm: fake}
}

func (f *fixture) start(t *testing.T, mode runs.Mode) string {
	t.Helper()
	resp, err := f.svc.Start(context.Background(), "ten-a", "u-1", "Find pricing information", mode)
	if err != nil {
		t.Fatal(err)
	}
	return resp.RunID
}

func (f *fixture) step(t *testing.T, runID string, snap *runs.Snapshot, result *runs.Result) runs.StepResponse {
	t.Helper()
	resp, err := f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", RunID: runID, Snapshot: snap, LastActionResult: result})
	if err != nil {
		t.Fatalf("Step() error = %v", err)
	}
	return resp
}

var page = &runs.Snapshot{URL: "https://shop.example/", Title: "Shop", VisibleText: "Welcome", Elements: []runs.Element{
	{ID: "agent-1", Tag: "a", Text: "Pricing", Href: "https://shop.example/pricing"},
	{ID: "agent-2", Tag: "input", Placeholder: "Search"},
	{ID: "agent-3", Tag: "button", Text: "Go"},
}}

func toolCall(name, args string) string {
	return fmt.Sprintf(`{"type":"tool_call","tool":{"name":%q,"arguments":%s}}`, name, args)
}

var success = &runs.Result{Success: true, Message: "Done"}

func TestStepFlowToFinish(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.llm.ReplyWithUsage(toolCall("observe", "{}"), 100, 5)
	f.llm.Reply(toolCall("click", `{"id":"agent-1"}`))
	f.llm.Reply(`{"type":"final","answer":"Pricing: $10/month","thought":"The page lists it."}`)

	r1 := f.step(t, id, nil, nil)
	if r1.Action != runs.ActionExecuteTool || r1.Tool.Name != "observe" || r1.State != (runs.StateView{Status: runs.StatusRunning, CurrentStep: 1, MaxSteps: 150}) ||
		r1.Metrics.PromptTokens != 100 || r1.Metrics.LLMAttempts != 1 {
		t.Fatalf("step 1 = %+v, want observe at step 1 running with its usage", r1)
	}
	if u := f.llm.Requests()[0].User(); !strings.Contains(u, "(no snapshot yet") || !strings.Contains(u, "TASK: Find pricing information") {
		t.Errorf("first prompt lacks the task or the no-snapshot note:\n%s", u)
	}
	r2 := f.step(t, id, page, &runs.Result{Success: true})
	if r2.Action != runs.ActionExecuteTool || r2.Tool.Name != "click" || r2.Tool.Parameters["id"] != "agent-1" || r2.State.CurrentStep != 2 {
		t.Fatalf("step 2 = %+v, want click agent-1 at step 2", r2)
	}
	if u := f.llm.Requests()[1].User(); !strings.Contains(u, "Step 1: observe → Success") || !strings.Contains(u, `[agent-1] a text="Pricing"`) {
		t.Errorf("second prompt lacks step 1 or the page:\n%s", u)
	}
	r3 := f.step(t, id, nil, &runs.Result{Success: true, Message: "Clicked successfully"})
	if r3.Action != runs.ActionFinish || r3.Result != "Pricing: $10/month" || r3.State.Status != runs.StatusCompleted || r3.State.CurrentStep != 3 {
		t.Fatalf("step 3 = %+v, want finish with the answer, completed at step 3", r3)
	}
	if u := f.llm.Requests()[2].User(); !strings.Contains(u, "URL: https://shop.example/") {
		t.Errorf("a step without a snapshot must show the last one:\n%s", u)
	}
	if _, err := f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", RunID: id}); !errors.Is(err, runs.ErrFinished) {
		t.Errorf("step after finish error = %v, want ErrFinished", err)
	}

	got, err := f.svc.Get(context.Background(), "ten-a", id)
	if err != nil {
		t.Fatal(err)
	}
	s := got.State
	if s.Status != runs.StatusCompleted || s.Result != "Pricing: $10/month" || len(s.History) != 3 || s.CurrentSnapshot == nil || s.CreatedAt == 0 || s.UpdatedAt < s.CreatedAt {
		t.Fatalf("Get() = %+v, want the completed run with 3 steps and the page", s)
	}
	want := []struct{ action, observation string }{{"observe", "Success"}, {"click", "Clicked successfully"}, {"finish", ""}}
	for i, w := range want {
		if h := s.History[i]; h.StepNumber != i+1 || h.Action != w.action || h.Observation != w.observation || h.Timestamp == 0 {
			t.Errorf("history[%d] = %+v, want step %d %s → %q", i, h, i+1, w.action, w.observation)
		}
	}
	if _, err := f.svc.Get(context.Background(), "ten-b", id); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("another tenant's Get() error = %v, want ErrNotFound", err)
	}
}

func TestStartValidates(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, task string
		mode       runs.Mode
		field      string
	}{
		{"missing task", "  ", runs.ModeCareful, "task"},
		{"task too long", strings.Repeat("t", runs.MaxTask+1), runs.ModeCareful, "task"},
		{"invalid mode", "t", "reckless", "mode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Start(context.Background(), "ten-a", "u-1", tc.task, tc.mode)
			var ve *runs.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("Start() error = %v, want a ValidationError on %s", err, tc.field)
			}
		})
	}
	resp, err := f.svc.Start(context.Background(), "ten-a", "u-1", "t", "")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.svc.Get(context.Background(), "ten-a", resp.RunID)
	if got.State.Mode != runs.ModeCareful || resp.State != (runs.StateView{Status: runs.StatusCreated, MaxSteps: 150}) {
		t.Errorf("Start() without a mode = %+v mode %s, want created, 150 steps, careful", resp, got.State.Mode)
	}
}

func TestCorrectiveRetry(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.llm.Reply(`Sure! I'll click the pricing link.`)
	f.llm.Reply(toolCall("click", `{"id":"agent-1"}`))
	r := f.step(t, id, page, nil)
	if r.Action != runs.ActionExecuteTool || r.Tool.Name != "click" || !r.Metrics.CorrectiveRetry {
		t.Fatalf("step = %+v, want the corrected click", r)
	}
	second := f.llm.Requests()[1]
	if !strings.Contains(second.User(), "Your reply could not be used: the reply is not a JSON object") || len(second.Messages) != 4 {
		t.Errorf("corrective request = %d messages, last %q; want the reply and the problem quoted", len(second.Messages), second.User())
	}

	f.llm.Reply(toolCall("click", `{"id":"agent-9"}`))
	f.llm.Reply(toolCall("click", `{"id":"agent-9"}`))
	r = f.step(t, id, nil, success)
	if r.Action != runs.ActionError || r.State.Status != runs.StatusError || r.State.CurrentStep != 1 ||
		!strings.Contains(r.Error, `The model did not choose a valid action: element "agent-9" is not on the current page`) {
		t.Errorf("step after two bad replies = %+v, want an error stop naming the problem", r)
	}
}

func TestCorrectionSkippedWithoutTime(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.llm.Reply(`not JSON`)
	f.llm.Reply(toolCall("observe", "{}"))
	// 6 s before the deadline, 3 s kept for writing: 3 s for the LLM, less than a correction needs.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	r, err := f.svc.Step(ctx, runs.StepRequest{TenantID: "ten-a", RunID: id})
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != runs.ActionError || !strings.HasSuffix(r.Error, "corrective retry skipped: not enough time left") || f.llm.Calls() != 1 {
		t.Errorf("step = %+v after %d LLM calls, want an error stop after 1 saying the retry was skipped", r, f.llm.Calls())
	}
}

func TestUnconfiguredLLM(t *testing.T) {
	f := newFixture(t)
	f.svc.LLM = llm.Unconfigured{Err: fmt.Errorf("%w (openai): OPENAI_API_KEY is not set", llm.ErrNotConfigured)}
	id := f.start(t, runs.ModeAutonomous)
	r := f.step(t, id, nil, nil)
	if r.Action != runs.ActionError || r.Error != "The language model is unavailable: no model is configured." || r.State.Status != runs.StatusError {
		t.Errorf("step = %+v, want an error stop saying no model is configured", r)
	}
}

func TestLLMFailureStopsTheRun(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	for range 3 {
		f.llm.Fail(503)
	}
	r := f.step(t, id, page, nil)
	if r.Action != runs.ActionError || r.State.Status != runs.StatusError || r.Error != "The language model is unavailable: the provider answered with status 503." ||
		f.llm.Calls() != 3 || r.Metrics.LLMAttempts != 3 {
		t.Errorf("step = %+v after %d calls, want an error stop after 3 attempts (2 retries)", r, f.llm.Calls())
	}
}

func TestIdempotentStep(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.llm.Reply(toolCall("observe", "{}"))
	req := runs.StepRequest{TenantID: "ten-a", RunID: id, IdempotencyKey: "k-1", RequestHash: "h-1"}
	first, err := f.svc.Step(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.Step(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if again.Action != first.Action || again.Tool.Name != "observe" || again.State != first.State || !again.Metrics.Replayed || f.llm.Calls() != 1 {
		t.Errorf("retried step = %+v after %d LLM calls, want the stored response and 1 call", again, f.llm.Calls())
	}
	req.RequestHash = "h-2"
	if _, err := f.svc.Step(context.Background(), req); !errors.Is(err, runs.ErrIdempotencyMismatch) {
		t.Errorf("same key, other body error = %v, want ErrIdempotencyMismatch", err)
	}
}

// Only the last 20 steps reach the prompt; the older ones are counted.
func TestPromptShowsTheLastTwentySteps(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	cycle := []string{
		toolCall("click", `{"id":"agent-1"}`), toolCall("type", `{"id":"agent-2","text":"socks"}`),
		toolCall("scroll", `{"deltaY":300}`), toolCall("press", `{"key":"Tab"}`), toolCall("click", `{"id":"agent-3"}`),
	}
	for i := range 23 {
		f.llm.Reply(cycle[i%len(cycle)])
	}
	for i := range 23 {
		if r := f.step(t, id, page, success); r.Action != runs.ActionExecuteTool {
			t.Fatalf("step %d = %+v, want a tool", i+1, r)
		}
	}
	last := f.llm.Requests()[22].User()
	if !strings.Contains(last, "(2 earlier steps not shown)\nStep 3: ") || strings.Contains(last, "Step 2: ") || !strings.Contains(last, "Step 22: ") {
		t.Errorf("prompt of step 23 should show steps 3 to 22 only:\n%s", last)
	}
	got, _ := f.svc.Get(context.Background(), "ten-a", id)
	if n := len(got.State.Reflections); n != 4 || got.State.Reflections[3].StepNumber != 20 || got.State.Reflections[3].Efficiency != runs.EfficiencyHigh {
		t.Errorf("reflections = %+v, want 4 (steps 5 to 20), all high", got.State.Reflections)
	}
}

func TestAnswerTextReachesThePrompt(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	f.llm.Reply(`{"type":"ask_user","question":"Monthly or yearly prices?"}`)
	r := f.step(t, id, page, nil)
	if r.Action != runs.ActionAskUser || r.Question != "Monthly or yearly prices?" || r.State.Status != runs.StatusWaitingUser {
		t.Fatalf("step = %+v, want the model's question", r)
	}
	if _, err := f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", RunID: id}); !errors.Is(err, runs.ErrWaitingUser) {
		t.Errorf("step while waiting error = %v, want ErrWaitingUser", err)
	}
	a, err := f.svc.Answer(context.Background(), runs.AnswerRequest{TenantID: "ten-a", RunID: id, Approved: true, Answer: "yearly, in euros"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Action != runs.ActionExecuteTool || a.Tool.Name != "observe" || a.State != (runs.StateView{Status: runs.StatusRunning, CurrentStep: 2, MaxSteps: 150}) {
		t.Fatalf("answer = %+v, want observe at step 2", a)
	}
	if _, err := f.svc.Answer(context.Background(), runs.AnswerRequest{TenantID: "ten-a", RunID: id, Approved: true}); !errors.Is(err, runs.ErrNotWaiting) {
		t.Errorf("second answer error = %v, want ErrNotWaiting", err)
	}
	f.llm.Reply(`{"type":"final","answer":"€100/year"}`)
	f.step(t, id, page, success)
	prompt := f.llm.Requests()[1].User()
	if !strings.Contains(prompt, "USER'S ANSWER TO YOUR QUESTION: yearly, in euros") ||
		!strings.Contains(prompt, `Step 1: ask_user "Monthly or yearly prices?" → The user approved. Their answer: yearly, in euros`) {
		t.Errorf("prompt after the answer lacks it:\n%s", prompt)
	}
}

func TestCancel(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.start(t, runs.ModeCareful)
	if err := f.svc.Cancel(ctx, "ten-a", id); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Cancel(ctx, "ten-a", id); err != nil {
		t.Errorf("second Cancel() error = %v, want nil", err)
	}
	got, _ := f.svc.Get(ctx, "ten-a", id)
	if got.State.Status != runs.StatusCancelled {
		t.Errorf("status = %s, want cancelled", got.State.Status)
	}
	if _, err := f.svc.Step(ctx, runs.StepRequest{TenantID: "ten-a", RunID: id}); !errors.Is(err, runs.ErrFinished) {
		t.Errorf("step after cancel error = %v, want ErrFinished", err)
	}
	if err := f.svc.Cancel(ctx, "ten-b", id); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("another tenant's Cancel() error = %v, want ErrNotFound", err)
	}
}

func TestIdleRunExpires(t *testing.T) {
	f := newFixture(t)
	id := f.start(t, runs.ModeCareful)
	f.store.Now = func() time.Time { return time.Now().Add(time.Hour) }
	for name, call := range map[string]func() error{
		"Get": func() error { _, err := f.svc.Get(context.Background(), "ten-a", id); return err },
		"Step": func() error {
			_, err := f.svc.Step(context.Background(), runs.StepRequest{TenantID: "ten-a", RunID: id})
			return err
		},
		"Cancel": func() error { return f.svc.Cancel(context.Background(), "ten-a", id) },
	} {
		if err := call(); !errors.Is(err, runs.ErrNotFound) {
			t.Errorf("%s() an hour idle error = %v, want ErrNotFound", name, err)
		}
	}
}
