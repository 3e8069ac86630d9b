package runs

import (
	"fmt"
	"strings"

	"github.com/screenagent/backend/shared/trust/gate"
)

// Security gate (PROXY_SERVER_ARCHITECTURE.md §4.2, "Security Gate"): actions that may spend
// money or commit the user on their behalf. What a tool does to the page comes from the tool
// table (acts); what reads as paying, buying, ordering, subscribing, donating, transferring or
// booking, in labels and URLs, from package gate (with the tenant's own words and URL patterns):
//
//   - navigating to a checkout or payment page;
//   - clicking an element whose label reads as such, or a link to a checkout or payment page;
//   - typing with submit, on any page (the specification's form submission);
//   - any click, typing or key on a checkout or payment page;
//   - pressing Enter or Space on a cart page, where it may place the order.
//
// Observing, scrolling, asking the user and finishing never are.

// gateFinding is why the gate stops an action: the question for the user and a note for the history.
type gateFinding struct {
	Question string
	Reason   string
}

// checkGate inspects a tool call against the page it would act on.
func checkGate(t Tool, page *Snapshot, rules *gate.Rules) (gateFinding, bool) {
	spec, ok := toolByName[t.Name]
	if !ok || spec.acts == actsNot {
		return gateFinding{}, false
	}
	if spec.acts == actsNavigate {
		if rules.Place(t.URL) == gate.Payment {
			return gateFinding{
				Question: fmt.Sprintf("⚠️ Security check: Attempting to navigate to a checkout or payment page (%s). Proceed?", shorten(t.URL, 200)),
				Reason:   "navigation to a checkout or payment URL",
			}, true
		}
		return gateFinding{}, false
	}
	el, _ := page.Element(t.ID)
	name := elementName(el, t.ID)
	place := gate.Elsewhere
	if page != nil {
		place = rules.Place(page.URL)
	}
	switch spec.acts {
	case actsActivate:
		if term, risky := riskyElement(el, rules); risky {
			return gateFinding{
				Question: fmt.Sprintf("⚠️ Security check: Attempting to click '%s'. Proceed?", name),
				Reason:   fmt.Sprintf("click on a payment-like element '%s' (%q)", name, term),
			}, true
		}
		if el.Href != "" && rules.Place(el.Href) == gate.Payment {
			return gateFinding{
				Question: fmt.Sprintf("⚠️ Security check: Attempting to click '%s', a link to a checkout or payment page (%s). Proceed?", name, shorten(el.Href, 200)),
				Reason:   fmt.Sprintf("click on '%s', a link to a checkout or payment URL", name),
			}, true
		}
	case actsInput:
		if t.Submit {
			return gateFinding{
				Question: fmt.Sprintf("⚠️ Security check: Attempting to type into '%s' and submit the form. Proceed?", name),
				Reason:   fmt.Sprintf("form submission through '%s'", name),
			}, true
		}
	case actsKey:
		if place == gate.Cart && activates(t.Key) {
			return gateFinding{
				Question: fmt.Sprintf("⚠️ Security check: Attempting to press '%s' on a cart page (%s), which may place the order. Proceed?", shorten(t.Key, 50), shorten(page.URL, 200)),
				Reason:   fmt.Sprintf("press '%s' on a cart page", shorten(t.Key, 50)),
			}, true
		}
	}
	if place == gate.Payment {
		what := fmt.Sprintf("%s '%s'", t.Name, name)
		if spec.acts == actsKey {
			what = fmt.Sprintf("press '%s'", shorten(t.Key, 50))
		}
		return gateFinding{
			Question: fmt.Sprintf("⚠️ Security check: Attempting to %s on a checkout or payment page (%s). Proceed?", what, shorten(page.URL, 200)),
			Reason:   fmt.Sprintf("%s on a checkout or payment page", what),
		}, true
	}
	return gateFinding{}, false
}

// riskyElement reports the risky term of what a user reads on the element (its text, accessible
// name and button value) or of the name its developer gave it.
func riskyElement(el Element, rules *gate.Rules) (string, bool) {
	for _, s := range []string{el.Text, el.AriaLabel, el.Value} {
		if term, ok := rules.Label(s); ok {
			return term, true
		}
	}
	return rules.Identifier(el.Name)
}

// activates reports whether pressing key activates what has the focus: submits its form or
// presses its button.
func activates(key string) bool {
	switch strings.ToLower(key) {
	case "enter", "return", "numpadenter", " ", "space", "spacebar":
		return true
	}
	return false
}

// elementName is how the question names an element: what the user sees on it.
func elementName(el Element, id string) string {
	for _, s := range []string{el.Text, el.AriaLabel, el.Value, el.Placeholder, el.Name} {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			return shorten(s, 80)
		}
	}
	return id
}
