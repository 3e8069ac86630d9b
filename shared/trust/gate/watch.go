package gate

import "strings"

// Watch says, before the agent acts, what the gate would hold on a page, so that the prompt
// warns where the gate holds and nowhere else: on a checkout or payment page every action
// (pageCause names why), else the elements a click on would be held (their indexes in elems).
// It asks Check itself, so the warning and the hold are one decision.
func (r *Rules) Watch(pageURL, pageText string, elems []Element) (pageCause string, held []int) {
	if p, cause := r.place(pageURL); p == Payment {
		return cause, nil
	}
	for i, el := range elems {
		if _, ok := r.Check(Action{Kind: Activate, Element: el, PageURL: pageURL, PageText: pageText}); ok {
			held = append(held, i)
		}
	}
	return "", held
}

// Notice is the prompt's warning of what the gate would hold on the page (Watch), with the held
// elements named as the prompt names them; "" when it holds nothing there.
func Notice(pageCause string, held []string) string {
	switch {
	case pageCause != "":
		return "Payment gate: the server asks the user before any action on this page, because of " + pageCause + "."
	case len(held) == 1:
		return "Payment gate: the server asks the user before a click on element " + held[0] + " (it may spend money or commit the user to a payment)."
	case len(held) > 1:
		return "Payment gate: the server asks the user before a click on elements " + strings.Join(held, ", ") + " (they may spend money or commit the user to a payment)."
	}
	return ""
}
