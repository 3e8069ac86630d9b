package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/trust"
)

// Kind is what an action does to the page, which is what the gate judges. Each engine maps its
// own actions to a kind; observing, scrolling, asking the user and finishing are None.
type Kind int

// Kinds of actions.
const (
	None Kind = iota
	// Activate clicks or otherwise activates an element.
	Activate
	// Input types into an element (Submit: and submits its form).
	Input
	// Key presses a key on the focused element.
	Key
	// Navigate opens a URL.
	Navigate
)

// Element is what the gate reads of the element an action targets.
type Element struct {
	Text, AriaLabel, Title, Value, Name, Placeholder, Href string
}

// Action is one action an engine is about to send to the browser, with the page it acts on.
type Action struct {
	Kind    Kind
	Element Element
	// URL is the address a Navigate opens.
	URL string
	// Key is the key a Key presses.
	Key    string
	Submit bool
	// PageURL and PageText are the page the action acts on (PageText: what it shows, for a total).
	PageURL, PageText string
	// ModelFlag is the model's own judgement, declared in the same reply as the action, that the
	// action pays or commits money. It can only add to the gate's judgement.
	ModelFlag bool
}

// Finding is why the gate holds an action.
type Finding struct {
	// Cause names, in plain words, what made the gate hold: `the aria-label "Pay now"`,
	// `the payment provider's page buy.stripe.com`, `the total on the page (€49.00)`.
	Cause string
	// Amount is the amount the action's label names, if any.
	Amount string
}

// Check returns why a is held, if it is: an activation of an element whose text, aria-label,
// title or value reads as paying, buying, ordering, subscribing, donating, tipping, transferring
// or booking (or whose name does); a link to or a navigation to a checkout or payment page or a
// payment provider; typing with submit (the specification's form submission); pressing Enter or
// Space on a cart page; any activation, typing or key on a checkout or payment page; a generic
// "Continue" or "Confirm" on a page showing a total; and any action the model itself flagged.
func (r *Rules) Check(a Action) (Finding, bool) {
	if a.Kind == None {
		return Finding{}, false
	}
	if a.Kind == Navigate {
		if p, cause := r.place(a.URL); p == Payment {
			return Finding{Cause: cause}, true
		}
		return r.flagged(a)
	}
	el := a.Element
	switch a.Kind {
	case Activate:
		for _, src := range []struct{ what, text string }{
			{"the text", el.Text}, {"the aria-label", el.AriaLabel}, {"the title", el.Title}, {"the value", el.Value},
		} {
			if v := r.judge(src.text); v.risky {
				f := Finding{Cause: fmt.Sprintf("%s %q", src.what, shorten(clean(src.text), 80)), Amount: v.amount}
				return f, true
			}
		}
		if el.Name != "" && r.Identifier(el.Name) {
			return Finding{Cause: fmt.Sprintf("the field name %q", shorten(el.Name, 80))}, true
		}
		if el.Href != "" {
			if p, cause := r.place(el.Href); p == Payment {
				return Finding{Cause: "a link to " + cause}, true
			}
		}
	case Input:
		if a.Submit {
			return Finding{Cause: "typing into a field and submitting its form"}, true
		}
	}
	place, cause := r.place(a.PageURL)
	switch {
	case a.Kind == Key && place == Cart && activates(a.Key):
		return Finding{Cause: fmt.Sprintf("pressing %s on a cart page, which may place the order", shorten(a.Key, 20))}, true
	case place == Payment:
		return Finding{Cause: "acting on " + cause}, true
	case a.Kind == Activate:
		if total, ok := r.total(a.PageText); ok && r.proceeds(el) {
			return Finding{Cause: fmt.Sprintf("%q on a page that shows an amount to pay (%s)", shorten(clean(label(el)), 80), total), Amount: total}, true
		}
	}
	return r.flagged(a)
}

func (r *Rules) flagged(a Action) (Finding, bool) {
	if a.ModelFlag {
		return Finding{Cause: "the model's own judgement that this action pays or commits money"}, true
	}
	return Finding{}, false
}

// proceeds reports whether what the element says is only a generic progress verb.
func (r *Rules) proceeds(el Element) bool {
	for _, s := range []string{el.Text, el.AriaLabel, el.Title, el.Value} {
		if strings.TrimSpace(s) != "" {
			return r.judge(s).proceed
		}
	}
	return false
}

// total returns the amount a page shows next to a word for a total or an amount due.
func (r *Rules) total(page string) (string, bool) {
	if page == "" {
		return "", false
	}
	f := Normalize(page)
	for _, h := range r.totals.find(f) {
		rest := f[h.end:min(len(f), h.end+60)]
		if a, ok := findAmount(rest); ok {
			return a, true
		}
	}
	return "", false
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

// label is what the user sees on an element, for messages.
func label(el Element) string {
	for _, s := range []string{el.Text, el.AriaLabel, el.Title, el.Value, el.Placeholder, el.Name} {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// Question is the question to the user about a held action, naming what it is (what, such as
// `click "Next"`) and what made the gate hold it.
func (f Finding) Question(what string) string {
	q := fmt.Sprintf("⚠️ Security check: %s may spend your money or commit you to a payment — the gate held it because of %s", what, f.Cause)
	if f.Amount != "" && !strings.Contains(f.Cause, f.Amount) {
		q += fmt.Sprintf(" (amount %s)", f.Amount)
	}
	return trust.Sentence(q) + " Proceed?"
}

// ConfirmationID binds an approval to one held action: it is derived from where the action was
// held (scope: the run or task and its step) and from everything that identifies the action, so
// an approval of it approves nothing else.
func ConfirmationID(scope string, a Action) string {
	h := sha256.New()
	for _, s := range []string{scope, fmt.Sprint(a.Kind), a.URL, a.Key, fmt.Sprint(a.Submit), a.PageURL,
		a.Element.Text, a.Element.AriaLabel, a.Element.Title, a.Element.Value, a.Element.Name, a.Element.Href} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return "cf_" + hex.EncodeToString(h.Sum(nil))[:32]
}

// clean joins a label's whitespace for messages.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// shorten cuts s to at most n runes.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
