package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/agent/agenttest"
	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/fakeclock"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/llm/provider"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tokens"
)

// fixedKnowledge is a retriever with a set answer (the knowledge service has its own tests).
type fixedKnowledge struct{ result knowledge.Result }

func (f fixedKnowledge) Resolve(context.Context, string, string, string) (knowledge.Result, error) {
	return f.result, nil
}

// fixture is an engine on in-memory stores (agenttest, held to the DynamoDB stores' contract by
// agentdb's tests) and a fake model server; fixtures share nothing, so tests run in parallel.
type fixture struct {
	engine *Engine
	llm    *llmtest.Server
	tasks  *agenttest.Tasks
	chat   *agenttest.Chat
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fake := llmtest.New(t)
	client, err := provider.New(provider.Options{BaseURL: fake.URL(), Model: "test-model", APIKey: "test-key", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{
		llm:   fake,
		tasks: agenttest.NewTasks(tasks.DefaultRetention),
		chat:  agenttest.NewChat(chat.DefaultRetention()),
	}
	f.engine = &Engine{
		Tasks: f.tasks, Chat: f.chat, Commit: &agenttest.Writer{Tasks: f.tasks, Chat: f.chat}, LLM: client, Model: "test-model",
		Knowledge: fixedKnowledge{knowledge.Result{Chunks: []knowledge.Chunk{}, Citations: []knowledge.Citation{}}},
	}
	return f
}

var alice = accounts.Identity{UserID: "u-alice", TenantID: "ten-a", TenantName: "A", Tier: accounts.TierFree}

const shopDOM = `<div><h1>Shop</h1><input id="1" type="text" placeholder="Search"/><button id="2">Search</button><a id="3" href="/cart">Cart</a></div>`

func reply(thought, action string) string {
	return "<Thought>" + thought + "</Thought>\n<Action>" + action + "</Action>"
}

func (f *fixture) step(t *testing.T, req Request) Response {
	t.Helper()
	if req.Identity.TenantID == "" {
		req.Identity = alice
	}
	if req.URL == "" {
		req.URL = "https://shop.example/"
	}
	if req.Query == "" {
		req.Query = "find wool socks"
	}
	if req.DOM == "" {
		req.DOM = shopDOM
	}
	resp, err := f.engine.Interact(context.Background(), req)
	if err != nil {
		t.Fatalf("Interact() error = %v", err)
	}
	return resp
}

func TestThreeStepTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A running task's provisional lifetime shorter than a finished one's shows the alignment below.
	f.tasks.Retention.Active = 24 * time.Hour
	f.llm.ReplyWithUsage(reply("I'll type the search.", `setValue(1, "wool socks")`), 120, 20)
	f.llm.Reply(reply("Now I press the search button.", "click(2)"))
	f.llm.Reply(reply("The results are shown.", "finish()"))

	r1 := f.step(t, Request{})
	if r1.TaskID == "" || r1.SessionID == "" || r1.Action != `setValue(1, "wool socks")` || r1.Status != StatusExecuting || r1.CurrentStep != 1 {
		t.Fatalf("step 1 = %+v, want a new task and session, the setValue action, executing, step 1", r1)
	}
	if r1.Usage == nil || r1.Usage.PromptTokens != 120 || r1.Usage.CompletionTokens != 20 {
		t.Errorf("usage = %+v, want 120/20 from the LLM", r1.Usage)
	}
	r2 := f.step(t, Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}})
	r3 := f.step(t, Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}})
	if r2.Action != "click(2)" || r3.Action != "finish()" || r3.Status != "completed" || r3.CurrentStep != 3 || r3.SessionID != r1.SessionID {
		t.Errorf("steps 2 and 3 = %+v / %+v, want click(2), then finish() completed at step 3 in the same session", r2, r3)
	}

	third := f.llm.Requests()[2].User()
	for _, want := range []string{`Task: "find wool socks"`, "Step 1:", "I'll type the search.", `setValue(1, "wool socks")`, "Step 2:", "click(2)", "Result: succeeded", "<page_content>", `[2]`} {
		if !strings.Contains(third, want) {
			t.Errorf("third prompt lacks %q:\n%s", want, third)
		}
	}
	if sys := f.llm.Requests()[0].System(); !strings.Contains(sys, "untrusted") || !strings.Contains(sys, "setValue(") {
		t.Errorf("system prompt lacks the untrusted-page rule or the grammar:\n%s", sys)
	}

	task, err := f.tasks.GetTask(context.Background(), alice.TenantID, r1.TaskID)
	if err != nil || task.Status != tasks.StatusCompleted || task.StepCount != 3 {
		t.Errorf("stored task = %+v, %v; want completed with 3 steps", task, err)
	}
	// The ended task's steps now carry its retention: moving the clock to just before the task
	// expires must still show all of them.
	clock := fakeclock.New(time.Now())
	f.tasks.Now = clock.Now
	clock.Advance(tasks.DefaultRetention.Finished - time.Hour)
	if steps, err := f.tasks.Steps(context.Background(), alice.TenantID, r1.TaskID); err != nil || len(steps) != 3 {
		t.Errorf("steps an hour before the task expires = %d, %v; want all 3", len(steps), err)
	}
	f.tasks.Now = time.Now
	sess, err := f.chat.GetSession(context.Background(), alice.TenantID, r1.SessionID)
	// user query + 3 assistant messages + 2 reports
	if err != nil || sess.MessageCount != 6 || sess.Status != chat.StatusCompleted {
		t.Errorf("session = %d messages, status %s (%v); want 6 and completed", sess.MessageCount, sess.Status, err)
	}

	_, err = f.engine.Interact(context.Background(), Request{Identity: alice, TaskID: r1.TaskID, URL: "https://shop.example/", Query: "q", DOM: shopDOM})
	if !errors.Is(err, ErrTaskCompleted) {
		t.Errorf("step after finish: %v, want ErrTaskCompleted", err)
	}
}

func TestTaskErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.SetDefault(reply("Clicking.", "click(2)"))
	r := f.step(t, Request{})
	bob := accounts.Identity{UserID: "u-bob", TenantID: "ten-b"}
	cases := []struct {
		name string
		req  Request
		want error
	}{
		{"unknown task", Request{Identity: alice, TaskID: "00000000-0000-4000-8000-000000000000"}, ErrTaskNotFound},
		{"another tenant's task", Request{Identity: bob, TaskID: r.TaskID}, ErrTaskNotFound},
		{"another session for the task", Request{Identity: alice, TaskID: r.TaskID, SessionID: "00000000-0000-4000-8000-000000000001"}, ErrSessionMismatch},
		{"unknown session", Request{Identity: alice, SessionID: "00000000-0000-4000-8000-000000000001"}, ErrSessionNotFound},
		{"another tenant's session", Request{Identity: bob, SessionID: r.SessionID}, ErrSessionNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.URL, tc.req.Query, tc.req.DOM = "https://shop.example/", "q", shopDOM
			if _, err := f.engine.Interact(context.Background(), tc.req); !errors.Is(err, tc.want) {
				t.Errorf("Interact() error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestMaxSteps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.engine.MaxSteps = 2
	f.llm.SetDefault(reply("Clicking.", "click(2)"))
	r := f.step(t, Request{})
	f.step(t, Request{TaskID: r.TaskID})
	_, err := f.engine.Interact(context.Background(), Request{Identity: alice, TaskID: r.TaskID, URL: "https://shop.example/", Query: "q", DOM: shopDOM})
	if !errors.Is(err, ErrMaxSteps) {
		t.Fatalf("step 3 of 2: %v, want ErrMaxSteps", err)
	}
	task, _ := f.tasks.GetTask(context.Background(), alice.TenantID, r.TaskID)
	sess, _ := f.chat.GetSession(context.Background(), alice.TenantID, r.SessionID)
	if task.Status != tasks.StatusFailed || task.StepCount != 2 || sess.Status != chat.StatusFailed {
		t.Errorf("task %s with %d steps, session %s; want failed with 2 steps and a failed session", task.Status, task.StepCount, sess.Status)
	}
	if calls := f.llm.Calls(); calls != 2 {
		t.Errorf("LLM calls = %d, want 2 (the refused step asks nothing)", calls)
	}
}

func TestIdempotentRetry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.SetDefault(reply("Clicking.", "click(2)"))
	req := Request{IdempotencyKey: "key-1", RequestHash: "hash-1"}
	first := f.step(t, req)
	again := f.step(t, req)
	if first.TaskID != again.TaskID || first.Action != again.Action || f.llm.Calls() != 1 {
		t.Errorf("retry gave task %s (first %s) after %d LLM calls; want the stored response and 1 call", again.TaskID, first.TaskID, f.llm.Calls())
	}
	req.RequestHash = "hash-2"
	req.Identity, req.URL, req.Query, req.DOM = alice, "https://shop.example/", "q", shopDOM
	if _, err := f.engine.Interact(context.Background(), req); !errors.Is(err, ErrIdempotencyMismatch) {
		t.Errorf("same key, other body: %v, want ErrIdempotencyMismatch", err)
	}
	other := Request{Identity: accounts.Identity{UserID: "u-bob", TenantID: "ten-b"}, IdempotencyKey: "key-1", RequestHash: "hash-1"}
	if r := f.step(t, other); r.TaskID == first.TaskID {
		t.Errorf("another tenant's request with the same key got the first tenant's task")
	}
}

func TestHugeDOMFitsTheBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var b strings.Builder
	for i := 0; b.Len() < 499_800; i++ {
		fmt.Fprintf(&b, `<div><a id="%d" href="/p/%d">Product %d in the catalog</a> some filler text here</div>`, i+10, i, i)
	}
	b.WriteString(`<button id="2">Search</button>`)
	dom := b.String() + strings.Repeat(" ", 500_000-b.Len())
	f.llm.Reply(reply("Clicking search.", "click(2)"))
	r := f.step(t, Request{DOM: dom, Query: "press search"})
	if r.Metrics.PageTokens > page.DefaultBudget || !r.Metrics.PageTruncated {
		t.Errorf("page tokens = %d (truncated %v), want at most %d and truncated", r.Metrics.PageTokens, r.Metrics.PageTruncated, page.DefaultBudget)
	}
	user := f.llm.Requests()[0].User()
	if est := tokens.Estimate(user); est > page.DefaultBudget+2000 {
		t.Errorf("user prompt is ~%d tokens, want the page within its budget", est)
	}
	if !strings.Contains(user, `[2]`) {
		t.Errorf("the element matching the query was cut from the page")
	}
}

func TestCorrectiveRetry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		replies    []string
		wantAction string
		wantStatus string
		wantCalls  int
	}{
		{"garbage then valid", []string{"I think we should click", reply("Clicking.", "click(2)")}, "click(2)", StatusExecuting, 2},
		{"unknown element then valid", []string{reply("Clicking.", "click(99)"), reply("Clicking.", "click(3)")}, "click(3)", StatusExecuting, 2},
		{"bad twice becomes fail", []string{"nope", "still nope"}, "", "failed", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			for _, r := range tc.replies {
				f.llm.Reply(r)
			}
			r := f.step(t, Request{})
			if tc.wantAction != "" && r.Action != tc.wantAction || !strings.HasPrefix(r.Action, "fail(") && tc.wantAction == "" || r.Status != tc.wantStatus {
				t.Errorf("action %q status %s, want %q %s", r.Action, r.Status, tc.wantAction, tc.wantStatus)
			}
			if f.llm.Calls() != tc.wantCalls || !r.Metrics.CorrectiveRetry {
				t.Errorf("LLM calls = %d, corrective = %v; want %d and true", f.llm.Calls(), r.Metrics.CorrectiveRetry, tc.wantCalls)
			}
			second := f.llm.Requests()[1]
			if last := second.Messages[len(second.Messages)-1].Content; !strings.Contains(last, "could not be used") {
				t.Errorf("corrective message = %q, want it to quote the problem", last)
			}
		})
	}
}

func TestLLMFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("Clicking.", "click(2)"))
	r := f.step(t, Request{})

	f.llm.Fail(http.StatusInternalServerError)
	f.llm.Fail(http.StatusInternalServerError)
	f.llm.Reply(reply("Clicking again.", "click(3)"))
	r2 := f.step(t, Request{TaskID: r.TaskID})
	if r2.Action != "click(3)" || r2.Metrics.LLMAttempts != 3 {
		t.Errorf("after two 500s: %q with %d attempts, want click(3) after 3", r2.Action, r2.Metrics.LLMAttempts)
	}

	for range 3 {
		f.llm.Fail(http.StatusServiceUnavailable)
	}
	_, err := f.engine.Interact(context.Background(), Request{Identity: alice, TaskID: r.TaskID, URL: "https://shop.example/", Query: "q", DOM: shopDOM})
	if !errors.Is(err, ErrLLM) {
		t.Fatalf("LLM down: %v, want ErrLLM", err)
	}
	task, _ := f.tasks.GetTask(context.Background(), alice.TenantID, r.TaskID)
	sess, _ := f.chat.GetSession(context.Background(), alice.TenantID, r.SessionID)
	if task.StepCount != 2 || task.Status != tasks.StatusActive || sess.MessageCount != 3 {
		t.Errorf("after a failed LLM call: %d steps, %s, %d messages; want the task unchanged (2, active, 3)", task.StepCount, task.Status, sess.MessageCount)
	}
	f.llm.Reply(reply("Back on track.", "click(1)"))
	if r3 := f.step(t, Request{TaskID: r.TaskID}); r3.CurrentStep != 3 {
		t.Errorf("the step after the outage is %d, want 3", r3.CurrentStep)
	}
	entries, _ := f.tasks.ListDebug(context.Background(), alice.TenantID, tasks.DebugFilter{TaskID: r.TaskID, LogType: "llm_error"})
	if len(entries) != 1 {
		t.Errorf("%d llm_error debug entries, want 1", len(entries))
	}
}

func TestReportedFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("Clicking the cart.", "click(3)"))
	r := f.step(t, Request{})
	f.llm.Reply(reply("Done.", "finish()"))
	id := 3
	r2 := f.step(t, Request{TaskID: r.TaskID, Report: &tasks.Report{Status: "failure", Error: &tasks.ActionError{Message: "Element not clickable", Code: "NOT_CLICKABLE", ElementID: &id}}})

	prompt := f.llm.Requests()[1].User()
	for _, want := range []string{`Result: FAILED — message "Element not clickable", code "NOT_CLICKABLE", element 3`, "SYSTEM NOTE: The last action failed (see its result above)", "FAILED", "verifySuccess"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt after a failure lacks %q:\n%s", want, prompt)
		}
	}
	if !strings.HasPrefix(r2.Action, "verifySuccess(") || r2.Status != StatusCorrecting || r2.Correction == nil {
		t.Errorf("finish() right after a failure became %q (%s, correction %+v), want verifySuccess(...), correcting, a correction", r2.Action, r2.Status, r2.Correction)
	}
	f.llm.Reply(reply("Verified, done.", "finish()"))
	if r3 := f.step(t, Request{TaskID: r.TaskID, Report: &tasks.Report{Status: "success"}}); r3.Action != "finish()" || r3.Status != "completed" {
		t.Errorf("finish() after a successful verification = %q %s, want finish() completed", r3.Action, r3.Status)
	}
}

func TestNeedsUserInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("I need your shoe size.", `askUser("What shoe size do you wear?")`))
	r := f.step(t, Request{})
	if r.Status != StatusNeedsUserInput || r.UserQuestion != "What shoe size do you wear?" || len(r.MissingInformation) != 1 {
		t.Errorf("response = %+v, want needs_user_input with the question", r)
	}
	task, _ := f.tasks.GetTask(context.Background(), alice.TenantID, r.TaskID)
	if task.Status != tasks.StatusActive {
		t.Errorf("task status = %s, want active while waiting for the user", task.Status)
	}
}

func TestKnowledgeReachesOnlyThePrompt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.engine.Knowledge = fixedKnowledge{knowledge.Result{
		HasOrgKnowledge: true,
		Chunks:          []knowledge.Chunk{{ID: "c1", Content: "Returns need an order number starting with RMA-.", DocumentTitle: "Returns policy"}},
		Citations:       []knowledge.Citation{{DocumentID: "d1", DocumentTitle: "Returns policy", Section: "Numbers"}},
	}}
	f.llm.Reply(reply("Clicking.", "click(2)"))
	r := f.step(t, Request{})
	if !r.HasOrgKnowledge {
		t.Errorf("hasOrgKnowledge = false, want true")
	}
	if p := f.llm.Requests()[0].User(); !strings.Contains(p, "RMA-") || !strings.Contains(p, "Returns policy — Numbers") {
		t.Errorf("prompt lacks the knowledge chunk:\n%s", p)
	}
	body, _ := json.Marshal(r)
	if strings.Contains(string(body), "RMA-") || strings.Contains(string(body), "citations") {
		t.Errorf("response carries knowledge: %s", body)
	}
}
