package actions

import (
	"strconv"
	"strings"

	"github.com/screenagent/backend/shared/actionbatch"
)

// BatchPart is the action as the batch rules see it. toggles reports whether an element of the
// page is a checkbox, radio button or option, on which an action marked ToggleInPage stays on
// the page.
func (a Action) BatchPart(toggles func(id int) bool) actionbatch.Part {
	p := actionbatch.Part{Action: a.String()}
	if a.spec == nil {
		return p
	}
	p.Role = a.spec.Batch
	if id, ok := a.ElementID(); ok {
		p.Target = strconv.Itoa(id)
		if a.spec.ToggleInPage && toggles != nil && toggles(id) {
			p.Role = actionbatch.InPage
		}
	}
	return p
}

// CheckBatch applies the batch rules (actionbatch.Check) to parsed actions.
func CheckBatch(batch []Action, toggles func(id int) bool) error {
	parts := make([]actionbatch.Part, len(batch))
	for i, a := range batch {
		parts[i] = a.BatchPart(toggles)
	}
	return actionbatch.Check(parts)
}

// BatchPromptText explains <Actions> to a client's model that may receive batches: which actions
// of the grammar may share a step and where, derived from the table.
func (g *Grammar) BatchPromptText() string {
	var inPage, last, toggle []string
	for _, s := range g.specs {
		switch {
		case s.Batch == actionbatch.InPage:
			inPage = append(inPage, s.Name)
		case s.Batch == actionbatch.Leaves && s.ToggleInPage:
			toggle = append(toggle, s.Name)
		case s.Batch == actionbatch.Leaves:
			last = append(last, s.Name)
		}
	}
	var b strings.Builder
	b.WriteString("Batches: when several fields of the current page need filling, you may answer with <Actions> in place of <Action>, one action per line:\n")
	b.WriteString("<Actions>\nsetValue(3, \"Ada\")\nsetValue(4, \"Lovelace\")\nclick(9)\n</Actions>\n")
	b.WriteString(actionbatch.Rules + "\n")
	if len(inPage) > 0 {
		b.WriteString("- Anywhere in a batch: " + strings.Join(inPage, ", "))
		if len(toggle) > 0 {
			b.WriteString("; " + strings.Join(toggle, ", ") + " on a checkbox, radio button or option")
		}
		b.WriteString(".\n")
	}
	var onlyLast []string
	for _, n := range toggle {
		onlyLast = append(onlyLast, n+" on any other element")
	}
	if onlyLast = append(onlyLast, last...); len(onlyLast) > 0 {
		b.WriteString("- Only as the last action: " + strings.Join(onlyLast, ", ") + ".\n")
	}
	b.WriteString("- Every other action is written alone in <Action>.\n")
	return b.String()
}

// BatchPromptText explains batches with the built-in table (see Grammar.BatchPromptText).
func BatchPromptText() string { return std.BatchPromptText() }
