package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/validation"
)

const checkoutDOM = `<div><h1>Your basket</h1><p>Wool socks, 2 pairs</p>` +
	`<button id="3" aria-label="Pay now">Next</button><button id="4">Buy now – €49</button><a id="5" href="/help">Help</a></div>`

// TestCarefulModeHoldsPayments: in careful mode a click the payment gate holds is not sent; the
// user is asked, the question names the aria-label behind a plain "Next", and the answer has a
// confirmation id. Only the next request naming that id approves it, for that action only: the
// same click passes, another payment click is held again, and a wrong or stale id is refused.
// Autonomous mode, the default, sends the click as before.
func TestCarefulModeHoldsPayments(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	careful := func(req Request) Request {
		req.Mode, req.DOM, req.URL, req.Query = ModeCareful, checkoutDOM, "https://shop.example/basket", "buy the socks"
		return req
	}

	f.llm.Reply(reply("I'll go on to payment.", "click(3)"))
	held := f.step(t, careful(Request{}))
	if !strings.HasPrefix(held.Action, "askUser(") || held.Status != StatusNeedsUserInput || held.ConfirmationID == "" ||
		!strings.Contains(held.UserQuestion, `the aria-label "Pay now"`) || !strings.Contains(held.UserQuestion, `click "Next"`) {
		t.Fatalf("held step = action %q, status %s, question %q, id %q; want askUser naming the aria-label, with a confirmation id",
			held.Action, held.Status, held.UserQuestion, held.ConfirmationID)
	}

	for name, id := range map[string]string{"a made-up id": "cf_0", "another task's id": "cf_" + strings.Repeat("a", 32)} {
		_, err := f.engine.Interact(ctx, careful(Request{Identity: alice, TaskID: held.TaskID, ConfirmationID: id}))
		var v *validation.Error
		if !errors.As(err, &v) || v.Field != "confirmationId" {
			t.Errorf("approve with %s: error = %v, want a validation error on confirmationId", name, err)
		}
	}

	f.llm.Reply(reply("The user agreed; I'll pay.", "click(3)"))
	approved := f.step(t, careful(Request{TaskID: held.TaskID, Query: "yes", ConfirmationID: held.ConfirmationID}))
	if approved.Action != "click(3)" || approved.ConfirmationID != "" {
		t.Fatalf("approved step = %q (id %q), want click(3) sent", approved.Action, approved.ConfirmationID)
	}
	if _, err := f.engine.Interact(ctx, careful(Request{Identity: alice, TaskID: held.TaskID, ConfirmationID: held.ConfirmationID, Report: &tasks.Report{Status: "success"}})); err == nil {
		t.Error("the approval was accepted a second time, want it refused")
	}

	// An approval does not carry over to another action the gate holds.
	f.llm.Reply(reply("I'll pay.", "click(3)"))
	again := f.step(t, careful(Request{}))
	f.llm.Reply(reply("I'll buy it directly instead.", "click(4)"))
	other := f.step(t, careful(Request{TaskID: again.TaskID, Query: "yes", ConfirmationID: again.ConfirmationID}))
	if !strings.HasPrefix(other.Action, "askUser(") || other.ConfirmationID == "" || other.ConfirmationID == again.ConfirmationID ||
		!strings.Contains(other.UserQuestion, "€49") {
		t.Errorf("another action after an approval = %q (id %q, question %q), want it held with its own id, naming the amount", other.Action, other.ConfirmationID, other.UserQuestion)
	}

	f.llm.Reply(reply("I'll go on to payment.", "click(3)"))
	if auto := f.step(t, Request{DOM: checkoutDOM, URL: "https://shop.example/basket"}); auto.Action != "click(3)" || auto.ConfirmationID != "" {
		t.Errorf("autonomous (default) step = %q, want click(3) sent", auto.Action)
	}
	f.llm.Reply(reply("Help first.", "click(5)"))
	if safe := f.step(t, careful(Request{})); safe.Action != "click(5)" {
		t.Errorf("careful click on Help = %q, want it sent", safe.Action)
	}
}

// TestPaymentBlock: the model's own <Payment>yes</Payment>, in the same reply, holds an action the
// gate's words let through; one LLM call decides the step.
func TestPaymentBlock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("Searching.", "click(2)") + "\n<Payment>yes</Payment>")
	r := f.step(t, Request{Mode: ModeCareful})
	if !strings.HasPrefix(r.Action, "askUser(") || !strings.Contains(r.UserQuestion, "the model's own judgement") || f.llm.Calls() != 1 {
		t.Errorf("flagged step = %q (question %q) after %d LLM calls, want it held after one call", r.Action, r.UserQuestion, f.llm.Calls())
	}
}

// tenantGate is a tenant's additions to the payment gate, or a failure to read them.
type tenantGate struct {
	settings accounts.GateSettings
	err      error
}

func (g tenantGate) GateSettings(context.Context, string) (accounts.GateSettings, error) {
	return g.settings, g.err
}

// TestTenantWordsOnInteract: in careful mode a tenant's own words hold an action the built-in
// rules let through; settings that cannot be read fail the step before any LLM call.
func TestTenantWordsOnInteract(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dom := `<div><button id="7">Approve invoice</button></div>`
	f.engine.Gate = tenantGate{settings: accounts.GateSettings{Words: []string{"Approve invoice"}}}
	f.llm.Reply(reply("Approving.", "click(7)"))
	if r := f.step(t, Request{Mode: ModeCareful, DOM: dom}); !strings.HasPrefix(r.Action, "askUser(") || r.ConfirmationID == "" {
		t.Errorf("careful click on the tenant's word = %q, want it held", r.Action)
	}
	f.engine.Gate = tenantGate{err: errors.New("accounts table unreachable")}
	calls := f.llm.Calls()
	if _, err := f.engine.Interact(context.Background(), Request{Identity: alice, Mode: ModeCareful, URL: "https://shop.example/", Query: "q", DOM: dom}); err == nil || f.llm.Calls() != calls {
		t.Errorf("careful step without the tenant's settings: error %v after %d LLM calls, want an error before any call", err, f.llm.Calls()-calls)
	}
}
