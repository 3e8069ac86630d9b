package runs

import (
	"fmt"
	"strings"

	"github.com/screenagent/backend/shared/trust/gate"
)

// Security gate (PROXY_SERVER_ARCHITECTURE.md §4.2, "Security Gate"): actions that may spend
// money or commit the user on their behalf are judged by package gate, which the interact engine
// shares. What a tool does to the page comes from the tool table (acts); this file only maps a
// call and its page to gate.Action.

// gateFinding is why the gate stops an action: the question for the user, what the action is and
// what made the gate hold it, for the history, and the id that binds an approval to this very
// action.
type gateFinding struct {
	Question       string
	What, Cause    string
	ConfirmationID string
}

// held is the history's note of a call the gate held (careful mode).
func (f gateFinding) held() string { return fmt.Sprintf("%s, held because of %s", f.What, f.Cause) }

// allowed is the history's note of a call autonomous mode sent that careful mode would have held.
func (f gateFinding) allowed() string {
	return fmt.Sprintf("%s, sent in autonomous mode; careful mode would have held it because of %s", f.What, f.Cause)
}

// checkGate inspects a tool call against the page it would act on; scope identifies the run and
// step, so that the confirmation id is this action's alone. flagged is the model's own judgement
// that the call pays, declared in its reply.
func checkGate(t Tool, page *Snapshot, rules *gate.Rules, scope string, flagged bool) (gateFinding, bool) {
	a, ok := gateAction(t, page)
	if !ok {
		return gateFinding{}, false
	}
	a.ModelFlag = flagged
	f, held := rules.Check(a)
	if !held {
		return gateFinding{}, false
	}
	what := fmt.Sprintf("%s %q", t.Name, elementName(a.Element, t.ID))
	switch t.Name {
	case ToolNavigate:
		what = fmt.Sprintf("navigating to %s", shorten(t.URL, 200))
	case ToolPress:
		what = fmt.Sprintf("pressing %q", shorten(t.Key, 50))
	}
	return gateFinding{
		Question: f.Question(what),
		What:     what, Cause: f.Cause,
		ConfirmationID: gate.ConfirmationID(scope, a),
	}, true
}

// gateAction is the gate's view of a call; calls that do not act on the page have none.
func gateAction(t Tool, page *Snapshot) (gate.Action, bool) {
	spec, ok := toolByName[t.Name]
	if !ok || spec.acts == actsNot {
		return gate.Action{}, false
	}
	a := gate.Action{URL: t.URL, Key: t.Key, Submit: t.Submit}
	if page != nil {
		a.PageURL, a.PageText = page.URL, page.VisibleText
	}
	switch spec.acts {
	case actsNavigate:
		a.Kind = gate.Navigate
	case actsActivate:
		a.Kind = gate.Activate
	case actsInput:
		a.Kind = gate.Input
	case actsKey:
		a.Kind = gate.Key
	}
	if el, ok := page.Element(t.ID); ok {
		a.Element = gateElement(el)
	}
	return a, true
}

// gateElement is what the gate reads of a snapshot's element.
func gateElement(el Element) gate.Element {
	return gate.Element{Text: el.Text, AriaLabel: el.AriaLabel, Value: el.Value, Name: el.Name, Placeholder: el.Placeholder, Href: el.Href}
}

// gateNotice warns the model, before it acts, of what the gate would hold on the page (gate.Watch,
// the gate's own decision): in careful mode only, since autonomous mode holds nothing.
func gateNotice(mode Mode, page *Snapshot, rules *gate.Rules) string {
	if mode != ModeCareful || page == nil {
		return ""
	}
	views := make([]gate.Element, len(page.Elements))
	for i, el := range page.Elements {
		views[i] = gateElement(el)
	}
	cause, held := rules.Watch(page.URL, page.VisibleText, views)
	ids := make([]string, len(held))
	for i, k := range held {
		ids[i] = page.Elements[k].ID
	}
	return gate.Notice(cause, ids)
}

// elementName is how the question names an element: what the user sees on it.
func elementName(el gate.Element, id string) string {
	for _, s := range []string{el.Text, el.AriaLabel, el.Value, el.Placeholder, el.Name} {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			return shorten(s, 80)
		}
	}
	return id
}
