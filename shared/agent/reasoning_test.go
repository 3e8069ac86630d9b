package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/tasks"
)

const peopleDOM = `<table><tr><td>Marisol Vega</td><td>Chief Executive Officer</td></tr></table><a id="1" href="https://crm.example/">CRM</a>`

func TestPlanIsKeptAdvancedAndShown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply("<Plan>\n1. Search for wool socks\n2. Open the cart\n3. Check out\n</Plan>\n" + reply("Searching first.", `setValue(1, "wool socks")`))
	r1 := f.step(t, Request{})
	if r1.Status != StatusPlanning || r1.Plan == nil || r1.TotalSteps != 3 || r1.CurrentStep != 1 || r1.StepProgress == nil || r1.StepProgress.StepDescription != "Search for wool socks" {
		t.Fatalf("step 1 = status %s, plan %+v, %d/%d, progress %+v; want planning, a 3-step plan at step 1", r1.Status, r1.Plan, r1.CurrentStep, r1.TotalSteps, r1.StepProgress)
	}
	f.llm.Reply("<Step>2</Step>\n" + reply("Now the cart.", "click(3)"))
	r2 := f.step(t, Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}})
	if r2.CurrentStep != 2 || r2.Plan.Steps[0].Status != tasks.PlanDone || r2.Plan.Steps[1].Status != tasks.PlanInProgress || r2.Status != StatusExecuting {
		t.Errorf("step 2 = %d, plan %+v, %s; want step 2 in progress, step 1 done, executing", r2.CurrentStep, r2.Plan.Steps, r2.Status)
	}
	f.llm.Reply(reply("Done.", "finish()"))
	f.step(t, Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}})
	third := f.llm.Requests()[2].User()
	for _, want := range []string{`[x] 1. "Search for wool socks"`, `[>] 2. "Open the cart"`, `[ ] 3. "Check out"`} {
		if !strings.Contains(third, want) {
			t.Errorf("third prompt lacks %q:\n%s", want, third)
		}
	}
	if sys := f.llm.Requests()[0].System(); !strings.Contains(sys, "<Plan>") || !strings.Contains(sys, "<Expect>") {
		t.Errorf("system prompt does not document the reply format:\n%s", sys)
	}
}

func TestExpectedOutcomeIsVerifiedOnTheNextPage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		nextURL     string
		nextDOM     string
		wantVerdict string
		wantStatus  string
		wantNote    string
	}{
		{"met", "https://shop.example/cart", `<h1>Your cart</h1><p>Added to cart</p><button id="9">Checkout</button>`, tasks.Verified, StatusExecuting, ""},
		{"unchanged page", "https://shop.example/", shopDOM, tasks.Unverified, StatusCorrecting, "Correction (RETRY_WITH_DELAY)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply("<Expect>url contains \"/cart\"; text \"Added to cart\" appears</Expect>\n" + reply("Opening the cart.", "click(3)"))
			r1 := f.step(t, Request{})
			if r1.ExpectedOutcome == nil || r1.ExpectedOutcome.URLContains != "/cart" || len(r1.ExpectedOutcome.TextAppears) != 1 {
				t.Fatalf("expected outcome = %+v, want the url and text checks", r1.ExpectedOutcome)
			}
			f.llm.Reply("<Evaluation>unknown</Evaluation>\n" + reply("Next.", "wait(2)"))
			r2 := f.step(t, Request{TaskID: r1.TaskID, URL: tc.nextURL, DOM: tc.nextDOM, Report: &tasks.Report{Status: "success"}})
			if r2.Verification == nil || r2.Verification.Verdict != tc.wantVerdict || r2.Verification.Method != "deterministic" || r2.Status != tc.wantStatus {
				t.Fatalf("verification = %+v, status %s; want %s by deterministic checks, %s", r2.Verification, r2.Status, tc.wantVerdict, tc.wantStatus)
			}
			prompt := f.llm.Requests()[1].User()
			if tc.wantNote != "" && (!strings.Contains(prompt, tc.wantNote) || r2.Correction == nil || r2.Correction.Action != "wait(2)") {
				t.Errorf("correction = %+v; prompt lacks %q:\n%s", r2.Correction, tc.wantNote, prompt)
			}
			if tc.wantNote == "" && r2.Correction != nil {
				t.Errorf("correction %+v after a verified action", r2.Correction)
			}
		})
	}
}

func TestTheModelsEvaluationDecidesWhenNothingWasPredicted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("Clicking.", "click(2)"))
	r1 := f.step(t, Request{})
	f.llm.Reply("<Evaluation>success: the results are listed</Evaluation>\n" + reply("Opening the cart.", "click(3)"))
	r2 := f.step(t, Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}})
	if v := r2.Verification; v == nil || v.Verdict != tasks.Verified || v.Method != "model" {
		t.Errorf("verification = %+v, want verified by the model's evaluation", v)
	}
	if f.llm.Calls() != 2 {
		t.Errorf("%d LLM calls, want 2: the evaluation is folded into the step's call", f.llm.Calls())
	}
}

func TestValuesCarryAcrossPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// The SERVER tool runs inside the request; the model is asked again and acts on the page.
	f.llm.Reply(reply("Marisol's title is on this row.", `extractValue("title", "Chief Executive Officer")`))
	f.llm.Reply(reply("Now to the CRM.", `navigate("https://crm.example/")`))
	r1 := f.step(t, Request{URL: "https://people.example/", DOM: peopleDOM, Query: "copy Marisol Vega's title into the CRM"})
	if r1.Action != `navigate("https://crm.example/")` || r1.ToolAction.ToolType != "DOM" || r1.ExtractedVariables["title"] != "Chief Executive Officer" || f.llm.Calls() != 2 {
		t.Fatalf("step 1 = %s (%+v), variables %v after %d calls; want the navigate, the title kept, 2 calls", r1.Action, r1.ToolAction, r1.ExtractedVariables, f.llm.Calls())
	}
	if tool := f.llm.Requests()[1].Messages; !strings.Contains(tool[len(tool)-1].Content, `SERVER TOOL RESULT: stored "title" = "Chief Executive Officer"`) {
		t.Errorf("the second call does not carry the tool's result: %q", tool[len(tool)-1].Content)
	}
	crm := `<form><label>Title <input id="4" type="text"/></label><button id="5">Save</button></form>`
	f.llm.Reply(reply("Typing the title.", `setValue(4, useVariable("title"))`))
	r2 := f.step(t, Request{TaskID: r1.TaskID, URL: "https://crm.example/", DOM: crm, Query: "copy Marisol Vega's title into the CRM", Report: &tasks.Report{Status: "success"}})
	if r2.Action != `setValue(4, "Chief Executive Officer")` {
		t.Errorf("action = %s, want useVariable replaced by the value", r2.Action)
	}
	if p := f.llm.Requests()[2].User(); !strings.Contains(p, `- "title" = "Chief Executive Officer"`) {
		t.Errorf("prompt lacks the extracted value:\n%s", p)
	}
	// An unknown key is a corrective retry, never a useVariable sent to the client.
	f.llm.Reply(reply("Typing the name.", `setValue(4, useVariable("name"))`))
	f.llm.Reply("<Extract>\nname = Marisol Vega\n</Extract>\n" + reply("Typing the name.", `setValue(4, "Marisol Vega")`))
	r3 := f.step(t, Request{TaskID: r1.TaskID, URL: "https://crm.example/", DOM: crm, Query: "copy Marisol Vega's title into the CRM", Report: &tasks.Report{Status: "success"}})
	if strings.Contains(r3.Action, "useVariable") || r3.ExtractedVariables["name"] != "Marisol Vega" || !r3.Metrics.CorrectiveRetry {
		t.Errorf("step 3 = %s, variables %v, corrective %v; want a corrected action and the extracted name", r3.Action, r3.ExtractedVariables, r3.Metrics.CorrectiveRetry)
	}
	// A new task starts empty; the client's variables are merged in.
	f.llm.Reply(reply("Hi.", "click(1)"))
	r4 := f.step(t, Request{Variables: map[string]string{"city": "Lisbon"}})
	if len(r4.ExtractedVariables) != 1 || r4.ExtractedVariables["city"] != "Lisbon" {
		t.Errorf("new task's variables = %v, want only the client's", r4.ExtractedVariables)
	}
	task, _ := f.tasks.GetTask(context.Background(), alice.TenantID, r1.TaskID)
	if task.Memory.Variables["title"] != "Chief Executive Officer" {
		t.Errorf("stored variables = %v, want the title kept on the task", task.Memory.Variables)
	}
}

func TestBranching(t *testing.T) {
	t.Parallel()
	plan := "<Plan>\n1. Open the company page\n2. IF the company is a software company THEN continue ELSE stop\n3. Add it to the list\n</Plan>\n"
	cases := []struct {
		name, branch, action, wantAction, wantTaken, wantStatus string
		wantCurrent                                             int
	}{
		{"condition holds", "<Branch>2: true</Branch>\n", "click(2)", "click(2)", "true", StatusExecuting, 3},
		{"condition fails and the server stops", "<Branch>2: false</Branch>\n", "click(2)", `finish("Stopped as planned: the condition \"the company is a software company\" decided so.")`, "false", "completed", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply(plan + reply("Opening.", "click(3)"))
			r1 := f.step(t, Request{})
			if c := r1.Plan.Steps[1]; c.Condition != "the company is a software company" || c.OnTrue != tasks.BranchContinue || c.OnFalse != tasks.BranchStop {
				t.Fatalf("conditional step = %+v", c)
			}
			f.llm.Reply("<Step>2</Step>\n" + tc.branch + reply("Deciding.", tc.action))
			r2 := f.step(t, Request{TaskID: r1.TaskID, Report: &tasks.Report{Status: "success"}})
			if r2.Action != tc.wantAction || r2.Plan.Steps[1].Taken != tc.wantTaken || r2.Status != tc.wantStatus || r2.CurrentStep != tc.wantCurrent {
				t.Errorf("got %s, taken %q, %s, step %d; want %s, %q, %s, %d", r2.Action, r2.Plan.Steps[1].Taken, r2.Status, r2.CurrentStep, tc.wantAction, tc.wantTaken, tc.wantStatus, tc.wantCurrent)
			}
		})
	}
}

func TestParsePlanAndExpectation(t *testing.T) {
	t.Parallel()
	steps := parsePlan("Plan:\n1. Log in\n- IF the cart is empty THEN stop ELSE step 4\n* Pay\nnot a step")
	if len(steps) != 3 || steps[1].OnTrue != tasks.BranchStop || steps[1].OnFalse != "step 4" || steps[2].Description != "Pay" {
		t.Errorf("parsePlan = %+v", steps)
	}
	x := parseExpectation(`The cart opens: url changes; text "Your cart" appears; text "Sign in" disappears`)
	if !x.URLChanges || len(x.TextAppears) != 1 || x.TextDisappears[0] != "Sign in" {
		t.Errorf("parseExpectation = %+v", x)
	}
	if parseExpectation("  ") != nil {
		t.Errorf("an empty expectation parsed to something")
	}
}

func TestAFailedLoginIsHandedToTheUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	login := `<h1>Sign in</h1><form><input id="5" type="email"/><input id="6" type="password"/><button id="7">Sign in</button></form>`
	failed := `<h1>Sign in</h1><p role="alert">Invalid email or password.</p><form><input id="5" type="email"/><input id="6" type="password"/><button id="7">Sign in</button></form>`
	f.llm.Reply(reply("Signing in.", "click(7)"))
	r := f.step(t, Request{URL: "https://app.example/login", DOM: login, Query: "log in and open my invoices"})
	calls := f.llm.Calls()
	r2 := f.step(t, Request{TaskID: r.TaskID, URL: "https://app.example/login", DOM: failed, Query: "log in and open my invoices", Report: &tasks.Report{Status: "success"}})
	if r2.Status != StatusNeedsUserInput || !strings.Contains(r2.UserQuestion, "Invalid email or password") || f.llm.Calls() != calls {
		t.Errorf("after a rejected login = %s %q with %d more LLM calls; want needs_user_input quoting the site, no LLM call", r2.Status, r2.UserQuestion, f.llm.Calls()-calls)
	}
	// The site's own full stop ends the server's sentence: never "password.." (trust.Sentence).
	if strings.Contains(r2.Thought, "..") || !strings.Contains(r2.Thought, "Invalid email or password. Only you") {
		t.Errorf("thought after a rejected login = %q, want the site's words ending with one stop", r2.Thought)
	}
	// The user's answer reaches the model, which logs in again; no question on a clean page.
	f.llm.Reply(reply("Trying the new password.", `setValue(6, "correct horse")`))
	r3 := f.step(t, Request{TaskID: r.TaskID, URL: "https://app.example/login", DOM: failed, Query: "the password is correct horse", Report: &tasks.Report{Status: "success"}})
	if r3.Action != `setValue(6, "correct horse")` {
		t.Errorf("after the answer = %s, want the model's action", r3.Action)
	}
}

func TestACookieBannerIsClosedBeforeTheTarget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dom := `<div role="dialog" aria-modal="true" aria-label="Cookie settings"><p>We use cookies to improve your experience.</p><button id="20">Accept all</button><button id="21">Reject all</button></div>` + shopDOM
	f.llm.Reply(reply("Searching.", "click(2)"))
	r := f.step(t, Request{DOM: dom})
	if r.Action != "click(20)" {
		t.Fatalf("action under a modal = %s, want click(20) (its Accept all)", r.Action)
	}
	f.llm.Reply(reply("Now the search.", "click(2)"))
	r2 := f.step(t, Request{TaskID: r.TaskID, Report: &tasks.Report{Status: "success"}})
	if r2.Action != "click(2)" {
		t.Errorf("after the banner closed = %s, want the model's target", r2.Action)
	}
	if p := f.llm.Requests()[1].User(); !strings.Contains(p, "the intended click(2) comes next") {
		t.Errorf("the next prompt does not say why the banner was closed:\n%s", p)
	}
	// Acting inside the overlay is left alone.
	f2 := newFixture(t)
	f2.llm.Reply(reply("Rejecting cookies.", "click(21)"))
	if r := f2.step(t, Request{DOM: dom}); r.Action != "click(21)" {
		t.Errorf("action inside the overlay = %s, want click(21)", r.Action)
	}
}

func TestRecordsAreStoredWithTheStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply("<Plan>\n1. Open the cart\n</Plan>\n<Expect>url contains \"/cart\"</Expect>\n" + reply("Opening the cart.", "click(3)"))
	r := f.step(t, Request{})
	f.llm.Reply(reply("Trying again.", "click(3)"))
	f.step(t, Request{TaskID: r.TaskID, Report: &tasks.Report{Status: "success"}})
	ctx := context.Background()
	vs, err := f.tasks.Verifications(ctx, alice.TenantID, r.TaskID)
	if err != nil || len(vs) != 1 || vs[0].Verdict != tasks.Unverified || vs[0].StepIndex != 0 {
		t.Errorf("verification records = %+v, %v; want one failed record of step 0", vs, err)
	}
	cs, err := f.tasks.Corrections(ctx, alice.TenantID, r.TaskID)
	if err != nil || len(cs) != 1 || cs[0].Action != "click(3)" || cs[0].Strategy == "" {
		t.Errorf("correction records = %+v, %v; want one with its strategy and the corrected action", cs, err)
	}
	plans, _ := f.tasks.ListDebug(ctx, alice.TenantID, tasks.DebugFilter{TaskID: r.TaskID, LogType: "plan"})
	if len(plans) != 1 {
		t.Errorf("%d plan debug entries, want 1 (the plan was made once)", len(plans))
	}
}
