package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust/gate"
	"github.com/screenagent/backend/shared/validation"
)

// Modes of the interact API, as the run API has them: autonomous (the default, today's
// behaviour) sends every action; careful asks the user before an action the payment gate holds.
const (
	ModeAutonomous = "autonomous"
	ModeCareful    = "careful"
)

// maxGatePageText bounds the page text the gate reads for a total: totals sit near the action.
const maxGatePageText = 20_000

// GateSettings reads a tenant's additions to the payment gate (accountsdb.Store).
type GateSettings interface {
	GateSettings(ctx context.Context, tenantID string) (accounts.GateSettings, error)
}

// gateRules are the payment gate's rules for a careful request: the built-in ones with the
// tenant's words and URL patterns. Autonomous requests need none, so read nothing.
func (e *Engine) gateRules(ctx context.Context, req Request) (*gate.Rules, error) {
	if req.Mode != ModeCareful || e.Gate == nil {
		return gate.Default(), nil
	}
	s, err := e.Gate.GateSettings(ctx, req.Identity.TenantID)
	if err != nil {
		return nil, fmt.Errorf("payment gate settings: %w", err)
	}
	return gate.New(gate.Custom{Words: s.Words, URLPatterns: s.URLPatterns}), nil
}

// checkApproval refuses a confirmationId that is not the one of the action held at the task's
// last step: an approval applies to that action only, and only once.
func checkApproval(req Request, mem tasks.Memory) error {
	if req.ConfirmationID == "" || req.ConfirmationID == mem.Held {
		return nil
	}
	if mem.Held == "" {
		return &validation.Error{Field: "confirmationId", Reason: "no action of this task is waiting for approval"}
	}
	return &validation.Error{Field: "confirmationId", Reason: fmt.Sprintf("must be the confirmationId of the held action (%s)", mem.Held)}
}

// holdPayment applies the payment gate (package gate, shared with the run API) to the action the
// model chose. In careful mode an action the gate holds is not sent: the user is asked instead,
// with a question naming what made the gate hold, and the answer carries a confirmation id.
// The next request approves with that id; the action passes only if the model chooses the very
// same action on the same page (its target and amount) again, so an approval cannot be carried
// over to another action, and page text, which reaches only the model, can approve nothing.
func holdPayment(d decision, req Request, mem *tasks.Memory, pg *pagemodel.Page, scope string, rules *gate.Rules) (decision, string) {
	approved := req.ConfirmationID
	mem.Held = ""
	a, ok := gateAction(d, pg, req.URL)
	if !ok || req.Mode != ModeCareful {
		return d, ""
	}
	f, held := rules.Check(a)
	if !held {
		return d, ""
	}
	id := gate.ConfirmationID(scope, a)
	if approved == id {
		d.note = "the user approved this action when the payment gate held it"
		return d, ""
	}
	what := d.action.Name()
	if label := strings.Join(strings.Fields(firstOf(a.Element.Text, a.Element.AriaLabel, a.Element.Title, a.Element.Value, a.Element.Placeholder)), " "); label != "" {
		what = fmt.Sprintf("%s %q", what, shorten(label, 80))
	} else if a.Kind == gate.Navigate {
		what = "navigating to " + shorten(a.URL, 200)
	}
	ask, err := actions.New("askUser", f.Question(what))
	if err != nil {
		// A question the grammar refuses cannot be asked: holding the action is what matters.
		ask, _ = actions.New("askUser", "⚠️ Security check: the next action may spend your money. Proceed?")
	}
	mem.Held = id
	d.action = ask
	d.note = fmt.Sprintf("the payment gate held %s (%s) for the user's approval", shorten(d.modelAction, 200), f.Cause)
	return d, id
}

// gateAction is the gate's view of an interact action on the page.
func gateAction(d decision, pg *pagemodel.Page, pageURL string) (gate.Action, bool) {
	a := gate.Action{PageURL: pageURL, ModelFlag: declaresPayment(d.sections["Payment"])}
	switch d.action.Name() {
	case "click":
		a.Kind = gate.Activate
	case "setValue":
		a.Kind = gate.Input
	case "pressKey":
		a.Kind = gate.Key
		a.Key, _ = d.action.Text()
	case "navigate":
		a.Kind = gate.Navigate
		a.URL, _ = d.action.Text()
	default:
		return gate.Action{}, false
	}
	if id, ok := d.action.ElementID(); ok {
		if el, ok := pg.Element(id); ok {
			a.Element = gateElement(el)
		}
	}
	a.PageText = gatePageText(pg)
	return a, true
}

// gateElement is what the gate reads of a page element.
func gateElement(el pagemodel.Element) gate.Element {
	attr := func(n string) string { v, _ := el.Attr(n); return v }
	return gate.Element{
		Text: el.Text, AriaLabel: attr("aria-label"), Title: attr("title"), Value: attr("value"),
		Name: attr("name"), Placeholder: attr("placeholder"), Href: attr("href"),
	}
}

// gatePageText is the page text the gate reads for a total.
func gatePageText(pg *pagemodel.Page) string {
	text := strings.Join(pg.Texts(), " ")
	if len(text) > maxGatePageText {
		text = text[:maxGatePageText]
	}
	return text
}

// gateNotes warn the model, before it acts, of what the gate would hold on this page (gate.Watch,
// the gate's own decision): in careful mode only, since autonomous mode holds nothing.
func gateNotes(mode string, pg *pagemodel.Page, pageURL string, rules *gate.Rules) []string {
	if mode != ModeCareful {
		return nil
	}
	els := pg.Elements()
	views := make([]gate.Element, len(els))
	for i, el := range els {
		views[i] = gateElement(el)
	}
	cause, held := rules.Watch(pageURL, gatePageText(pg), views)
	ids := make([]string, len(held))
	for i, k := range held {
		ids[i] = strconv.Itoa(els[k].ID)
	}
	if n := gate.Notice(cause, ids); n != "" {
		return []string{n}
	}
	return nil
}

// declaresPayment reads the model's optional <Payment> block: its own judgement, in the same
// reply, that the action pays or commits money.
func declaresPayment(s string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(s), ".!")) {
	case "yes", "true", "1":
		return true
	}
	return false
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
