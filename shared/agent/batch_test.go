package agent

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/tasks"
)

// formDOM is one page of a form: three text fields, a password, a checkbox and the submit button.
const formDOM = `<form><h1>Contact</h1>
<input id="1" type="text" placeholder="Name"/><input id="2" type="email" placeholder="Email"/>
<textarea id="3" placeholder="Message"></textarea><input id="4" type="password" placeholder="Password"/>
<input id="5" type="checkbox" aria-label="Subscribe"/><button id="6" type="submit">Send</button></form>`

const formBatch = "<Thought>I fill the form and send it.</Thought>\n<Actions>\nsetValue(1, \"Ada\")\nsetValue(2, \"ada@example.com\")\n" +
	"setValue(4, \"hunter2\")\nclick(5)\nclick(6)\n</Actions>"

var formParts = []string{`setValue(1, "Ada")`, `setValue(2, "ada@example.com")`, `setValue(4, "hunter2")`, "click(5)", "click(6)"}

func TestBatchAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		capable     bool
		wantActions []string // nil: the answer has no actions field
	}{
		{"with the capability the whole batch comes back", true, formParts},
		{"without it only the first action", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply(formBatch)
			r := f.step(t, Request{DOM: formDOM, Query: "send the contact form", Batch: tt.capable})
			if r.Action != formParts[0] {
				t.Errorf("action = %q, want the first of the batch %q", r.Action, formParts[0])
			}
			if !slices.Equal(r.Actions, tt.wantActions) {
				t.Errorf("actions = %q, want %q", r.Actions, tt.wantActions)
			}
			if got := f.llm.Calls(); got != 1 {
				t.Errorf("LLM calls = %d, want 1", got)
			}
			if explained := strings.Contains(f.llm.Requests()[0].System(), "<Actions>"); explained != tt.capable {
				t.Errorf("system prompt explains <Actions>: %v, want %v", explained, tt.capable)
			}
			steps, err := f.tasks.Steps(context.Background(), alice.TenantID, r.TaskID)
			if err != nil || len(steps) != 1 {
				t.Fatalf("steps = %d, %v; want 1", len(steps), err)
			}
			if tt.capable {
				want := slices.Clone(formParts)
				want[2] = `setValue(4, "••••••")`
				if !slices.Equal(steps[0].Actions, want) {
					t.Errorf("stored parts = %q, want %q (the password masked, the rest as sent)", steps[0].Actions, want)
				}
			} else if steps[0].Actions != nil {
				t.Errorf("stored parts = %q, want none for a single action", steps[0].Actions)
			}
		})
	}
}

func TestBatchRulesGetACorrectiveRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, batch, wantErr string
	}{
		{"a submit in the middle", "<Actions>\nsetValue(1, \"Ada\")\nclick(6)\nsetValue(2, \"a@b.c\")\n</Actions>", "only be the last action"},
		{"an element the page lacks", "<Actions>\nsetValue(1, \"Ada\")\nsetValue(99, \"x\")\n</Actions>", "action 2 of the batch: setValue: element 99"},
		{"finishing in a batch", "<Actions>\nsetValue(1, \"Ada\")\nfinish()\n</Actions>", "cannot be part of a batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply("<Thought>t</Thought>" + tt.batch)
			f.llm.Reply("<Thought>t</Thought><Actions>\nsetValue(1, \"Ada\")\nclick(6)\n</Actions>")
			r := f.step(t, Request{DOM: formDOM, Query: "send the contact form", Batch: true})
			if want := []string{`setValue(1, "Ada")`, "click(6)"}; !slices.Equal(r.Actions, want) {
				t.Errorf("actions = %q, want the corrected batch %q", r.Actions, want)
			}
			reqs := f.llm.Requests()
			if len(reqs) != 2 {
				t.Fatalf("LLM calls = %d, want 2 (one corrective retry)", len(reqs))
			}
			if last := reqs[1].Messages[len(reqs[1].Messages)-1].Content; !strings.Contains(last, tt.wantErr) {
				t.Errorf("corrective prompt = %q, want it to quote %q", last, tt.wantErr)
			}
		})
	}
}

func TestBatchOutcomesReachThePromptAndTheRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		results []tasks.ActionResult
		dom     string
		want    []string // in the next prompt
	}{
		{"partial failure", []tasks.ActionResult{
			{Action: formParts[0], Status: "success"},
			{Action: formParts[1], Status: "failure", Error: &tasks.ActionError{Message: "field is read-only", Code: "NOT_EDITABLE"}},
			{Action: formParts[2], Status: "skipped"}, {Action: formParts[3], Status: "skipped"}, {Action: formParts[4], Status: "skipped"},
		}, formDOM, []string{`setValue(1, "Ada") succeeded`, `setValue(2, "ada@example.com") FAILED — message "field is read-only"`, "click(6) was not run", "SYSTEM NOTE: The last action failed"}},
		{"the page changed mid-batch", []tasks.ActionResult{
			{Action: formParts[0], Status: "success"}, {Action: formParts[1], Status: "success"},
			{Action: formParts[2], Status: "skipped"}, {Action: formParts[3], Status: "skipped"}, {Action: formParts[4], Status: "skipped"},
		}, `<form><h1>Address</h1><input id="7" placeholder="City"/><button id="8">Next</button></form>`, []string{`setValue(2, "ada@example.com") succeeded`, `setValue(4, "••••••") was not run`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply(formBatch)
			f.llm.Reply(reply("I look again.", "wait(1)"))
			r1 := f.step(t, Request{DOM: formDOM, Query: "send the contact form", Batch: true})
			status, lastErr, err := fromResults("", nil, tt.results)
			if err != nil {
				t.Fatal(err)
			}
			report := &tasks.Report{Status: status, Error: lastErr, Results: tt.results}
			f.step(t, Request{TaskID: r1.TaskID, DOM: tt.dom, Query: "send the contact form", Batch: true, Report: report})
			prompt := f.llm.Requests()[1].User()
			for _, want := range append(tt.want, "Actions (one batch): "+strings.Join([]string{formParts[0], formParts[1], `setValue(4, "••••••")`, formParts[3], formParts[4]}, "; ")) {
				if !strings.Contains(prompt, want) {
					t.Errorf("second prompt lacks %q:\n%s", want, prompt)
				}
			}
			if strings.Contains(prompt, "hunter2") {
				t.Errorf("second prompt shows the password:\n%s", prompt)
			}
			steps, err := f.tasks.Steps(context.Background(), alice.TenantID, r1.TaskID)
			if err != nil || len(steps) != 2 || steps[1].PreviousReport == nil {
				t.Fatalf("steps = %+v, %v; want 2, the second with the report", steps, err)
			}
			if got := steps[1].PreviousReport.Results; len(got) != len(tt.results) || got[2].Action != `setValue(4, "••••••")` {
				t.Errorf("stored results = %+v, want %d outcomes, the password's masked", got, len(tt.results))
			}
		})
	}
}

func TestBatchReplayReturnsTheWholeAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(formBatch)
	req := Request{DOM: formDOM, Query: "send the contact form", Batch: true, IdempotencyKey: "batch-1", RequestHash: "h"}
	first := f.step(t, req)
	again := f.step(t, req)
	if !slices.Equal(again.Actions, formParts) || again.Action != first.Action || again.TaskID != first.TaskID {
		t.Errorf("replayed answer = %q / %q, want the stored batch %q", again.Action, again.Actions, formParts)
	}
	if got := f.llm.Calls(); got != 1 {
		t.Errorf("LLM calls = %d, want 1 (the retry is replayed)", got)
	}
}

func TestBatchSecretsInTheClientsEchoAreMasked(t *testing.T) {
	t.Parallel()
	last := &tasks.Brief{Action: formParts[0], Actions: []string{formParts[0], `setValue(4, "••••••")`}}
	r := &tasks.Report{Status: "failure", Error: &tasks.ActionError{Action: `setValue(4, "hunter2")`, Message: "rejected"}, Results: []tasks.ActionResult{
		{Action: formParts[0], Status: "success"},
		{Action: `setValue(4, "hunter2")`, Status: "failure", Error: &tasks.ActionError{Action: `setValue(4, "hunter2")`}},
		{Action: "click(9)", Status: "skipped"},
	}}
	maskResults(r, last)
	for i, res := range r.Results {
		if strings.Contains(res.Action, "hunter2") || res.Error != nil && strings.Contains(res.Error.Action, "hunter2") {
			t.Errorf("result %d = %+v, still shows the password", i, res)
		}
	}
	if len(r.Results) != 2 || strings.Contains(r.Error.Action, "hunter2") {
		t.Errorf("report = %+v, want 2 results (as many as were sent) and the error's action masked", r)
	}
}

func TestLoopGuardSeesEveryPart(t *testing.T) {
	t.Parallel()
	mem := &tasks.Memory{Recent: []tasks.Brief{
		{Action: "click(6)", Fingerprint: "other page"},
		{Action: formParts[0], Actions: []string{formParts[0], "click(5)"}, Fingerprint: "fp"},
		{Action: "click(5)", Fingerprint: "fp"},
	}}
	tried := triedOn(mem, "fp")
	if tried["click(5)"] != 2 || tried[formParts[0]] != 1 || tried["click(6)"] != 0 {
		t.Errorf("triedOn = %v, want click(5) twice (once in a batch), the setValue once, nothing from the page before", tried)
	}
}

func TestLastActionResults(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", MaxErrorMessage+1)
	tests := []struct {
		name       string
		status     string
		results    []tasks.ActionResult
		wantStatus string
		wantAction string // the derived error's action
		wantField  string // the rejected field; "" when accepted
	}{
		{"all succeeded", "", []tasks.ActionResult{{Action: "click(1)", Status: "success"}, {Action: "click(2)", Status: "success"}}, "success", "", ""},
		{"skipped after a page change is success", "", []tasks.ActionResult{{Action: "click(1)", Status: "success"}, {Action: "click(2)", Status: "skipped"}}, "success", "", ""},
		{"the first failure is the error", "", []tasks.ActionResult{{Action: "click(1)", Status: "success"}, {Action: "click(2)", Status: "failure", Error: &tasks.ActionError{Message: "gone"}}, {Action: "click(3)", Status: "skipped"}}, "failure", "click(2)", ""},
		{"the client's own status wins", "success", []tasks.ActionResult{{Action: "click(1)", Status: "failure"}}, "success", "", ""},
		{"an unknown outcome", "", []tasks.ActionResult{{Action: "click(1)", Status: "done"}}, "", "", "lastActionResults[0].status"},
		{"no action", "", []tasks.ActionResult{{Status: "success"}}, "", "", "lastActionResults[0].action"},
		{"an error on a success", "", []tasks.ActionResult{{Action: "click(1)", Status: "success", Error: &tasks.ActionError{}}}, "", "", "lastActionResults[0].error"},
		{"a long error message", "", []tasks.ActionResult{{Action: "click(1)", Status: "failure", Error: &tasks.ActionError{Message: long}}}, "", "", "lastActionResults[0].error.message"},
		{"too many", "", make([]tasks.ActionResult, 11), "", "", "lastActionResults"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, e, err := fromResults(tt.status, nil, tt.results)
			if tt.wantField != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantField) {
					t.Errorf("fromResults() error = %v, want one naming %s", err, tt.wantField)
				}
				return
			}
			if err != nil || status != tt.wantStatus {
				t.Fatalf("fromResults() = %q, %v; want %q", status, err, tt.wantStatus)
			}
			got := ""
			if e != nil {
				got = e.Action
			}
			if got != tt.wantAction {
				t.Errorf("derived error's action = %q, want %q", got, tt.wantAction)
			}
		})
	}
}

// payForm is a checkout form: two fields and the payment button.
const payForm = `<form><h1>Checkout</h1><input id="1" placeholder="Name on card"/><input id="2" placeholder="Postcode"/>` +
	`<button id="3">Pay €49 now</button></form>`

// TestCarefulModeCutsABatchBeforeAHeldAction: in careful mode a batch that ends on a payment
// click sends nothing and asks; the approval lets the same batch through whole; autonomous mode
// sends it as the model wrote it.
func TestCarefulModeCutsABatchBeforeAHeldAction(t *testing.T) {
	t.Parallel()
	batch := "<Thought>I fill in the card details and pay.</Thought><Actions>\nsetValue(1, \"Ada Lovelace\")\nsetValue(2, \"N1 9GU\")\nclick(3)\n</Actions>"
	want := []string{`setValue(1, "Ada Lovelace")`, `setValue(2, "N1 9GU")`, "click(3)"}
	req := func(mode string) Request {
		return Request{Mode: mode, DOM: payForm, URL: "https://shop.example/order/details", Query: "pay for the socks", Batch: true}
	}
	f := newFixture(t)
	f.llm.Reply(batch)
	held := f.step(t, req(ModeCareful))
	if !strings.HasPrefix(held.Action, "askUser(") || !strings.Contains(held.Action, "Pay €49 now") || len(held.Actions) != 1 || held.Actions[0] != held.Action ||
		held.ConfirmationID == "" || held.Status != StatusNeedsUserInput {
		t.Fatalf("held = action %q, actions %q, id %q, status %s; want only the question, with a confirmation id",
			held.Action, held.Actions, held.ConfirmationID, held.Status)
	}
	f.llm.Reply(batch)
	approvedReq := req(ModeCareful)
	approvedReq.TaskID, approvedReq.Query, approvedReq.ConfirmationID = held.TaskID, "yes", held.ConfirmationID
	approved := f.step(t, approvedReq)
	if !slices.Equal(approved.Actions, want) || approved.ConfirmationID != "" {
		t.Errorf("approved = %q (id %q), want the whole batch %q", approved.Actions, approved.ConfirmationID, want)
	}

	f.llm.Reply(batch)
	if auto := f.step(t, req(ModeAutonomous)); !slices.Equal(auto.Actions, want) {
		t.Errorf("autonomous = %q, want the whole batch %q", auto.Actions, want)
	}
}
