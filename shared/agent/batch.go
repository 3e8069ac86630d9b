package agent

import (
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/actionbatch"
	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
	"github.com/screenagent/backend/shared/trust/gate"
)

// togglesOn reports, for the page, whether an element is a checkbox, radio button or option: a
// click on it changes the page in place, so it may stand anywhere in a batch.
func togglesOn(pg *pagemodel.Page) func(id int) bool {
	return func(id int) bool {
		e, ok := pg.Element(id)
		typ, _ := e.Attr("type")
		role, _ := e.Attr("role")
		return ok && actionbatch.Toggles(e.Tag, typ, role)
	}
}

// parseActions parses the reply's actions against the page: every line of a batch for a client
// that declared actionBatch (each valid, the whole within the batch rules), else only the first,
// so that a batch written anyway yields its first action.
func parseActions(r actions.Reply, pg *pagemodel.Page, vars map[string]string, held []trust.NamedSecret, pageURL string, batch bool) ([]actions.Action, error) {
	lines := r.Actions
	if !batch || len(lines) == 0 {
		lines = []string{r.Action}
	}
	out := make([]actions.Action, 0, len(lines))
	for i, line := range lines {
		// A named secret in any part is checked as a single action's is (parseSecretAction).
		a, ok, err := parseSecretAction(line, held, pageURL, pg.HasElement)
		if ok && err == nil {
			out = append(out, a)
			continue
		}
		var raw string
		if !ok {
			raw, err = substituteVariables(line, vars)
		}
		if err == nil {
			var a actions.Action
			if a, err = actions.Parse(raw); err == nil {
				err = actions.Validate(a, pg.HasElement)
				out = append(out, a)
			}
		}
		if err != nil {
			if len(lines) > 1 {
				return nil, fmt.Errorf("action %d of the batch: %w", i+1, err)
			}
			return nil, err
		}
	}
	if err := actions.CheckBatch(out, togglesOn(pg)); err != nil {
		return nil, err
	}
	return out, nil
}

// checkLoops applies the loop guard to every action of a batch that runs in the page.
func checkLoops(batch []actions.Action, tried map[string]int) error {
	for _, a := range batch {
		if a.Handler() != actions.DOM {
			continue
		}
		if err := checkLoop(a, tried); err != nil {
			return err
		}
	}
	return nil
}

// fitBatch keeps the batch only while the policies left its first action as the model chose it:
// an action the server put in its place (a verification, a dismissed overlay, a branch's stop)
// goes alone, and the model decides the rest again on the next page.
func fitBatch(d decision) decision {
	if len(d.batch) == 0 || d.batch[0].String() != d.action.String() {
		d.batch = []actions.Action{d.action}
	}
	return d
}

// clearBlockers closes an overlay that covers any action of the batch (clearBlocker), before
// all of them.
func clearBlockers(d decision, pg *pagemodel.Page) decision {
	for _, a := range d.batch {
		part := d
		part.action = a
		if cleared := clearBlocker(part, pg); cleared.action.String() != a.String() {
			cleared.batch = []actions.Action{cleared.action}
			return cleared
		}
	}
	return d
}

// batchStrings are the batch's actions as the client receives them.
func batchStrings(batch []actions.Action) []string {
	out := make([]string, len(batch))
	for i, a := range batch {
		out[i] = a.String()
	}
	return out
}

// storedBatch are the parts of a batch as stored, each with its secrets masked; nil for a
// single action, which Step.Action holds.
func storedBatch(batch []actions.Action, pg *pagemodel.Page) []string {
	if len(batch) < 2 {
		return nil
	}
	out := make([]string, len(batch))
	for i, a := range batch {
		out[i] = storedAction(a.String(), pg)
	}
	return out
}

// describeResults tells the model what became of each action of its last batch.
func describeResults(rs []tasks.ActionResult) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		switch actionbatch.Outcome(r.Status) {
		case actionbatch.Failed:
			parts[i] = r.Action + " FAILED — " + describeError(r.Error)
		case actionbatch.Skipped:
			parts[i] = r.Action + " was not run (an earlier action failed or the page changed)"
		default:
			parts[i] = r.Action + " succeeded"
		}
	}
	return strings.Join(parts, "; ")
}

// resultEvidence is the verification's evidence of each action of a batch, as reported.
func resultEvidence(r *tasks.Report) []string {
	if r == nil || len(r.Results) < 2 {
		return nil
	}
	return []string{"the batch's actions: " + describeResults(r.Results)}
}

// grammarText is the grammar section of the prompt, with batches explained only to a client
// that runs them.
func grammarText(batch bool) string {
	if !batch {
		return actions.PromptText()
	}
	return actions.PromptText() + "\n" + actions.BatchPromptText()
}

// maskResults puts the server's stored form of each action it sent (secrets masked) in place of
// the client's echo of it, by position, so that a typed password the client reports back is not
// stored; results beyond the actions sent are dropped.
func maskResults(r *tasks.Report, last *tasks.Brief) {
	if r == nil || len(r.Results) == 0 {
		return
	}
	sent := []string{""}
	if last != nil {
		sent = last.Actions
		if len(sent) == 0 {
			sent = []string{last.Action}
		}
	}
	if len(r.Results) > len(sent) {
		r.Results = r.Results[:len(sent)]
	}
	for i := range r.Results {
		r.Results[i].Action = sent[i]
		if e := r.Results[i].Error; e != nil && e.Action != "" {
			e.Action = sent[i]
		}
	}
	if r.Error != nil && r.Error.Action != "" {
		for _, res := range r.Results {
			if res.Status == string(actionbatch.Failed) {
				r.Error.Action = res.Action
				break
			}
		}
	}
}

// fromResults checks the outcomes of a batch (lastActionResults) and gives the report they
// make when the client sent no lastActionStatus: failure with the first failed action's error
// when any failed, else success. A status the client sent wins.
func fromResults(status string, lastErr *tasks.ActionError, results []tasks.ActionResult) (string, *tasks.ActionError, error) {
	if len(results) > actionbatch.Max {
		return "", nil, invalid("lastActionResults", fmt.Sprintf("must have at most %d entries", actionbatch.Max))
	}
	var failed *tasks.ActionResult
	for i := range results {
		r := &results[i]
		field := fmt.Sprintf("lastActionResults[%d]", i)
		switch {
		case !actionbatch.Outcome(r.Status).Valid():
			return "", nil, invalid(field+".status", "must be success, failure or skipped")
		case r.Action == "" || utf8.RuneCountInString(r.Action) > MaxErrorAction:
			return "", nil, invalid(field+".action", fmt.Sprintf("must be 1 to %d characters", MaxErrorAction))
		case r.Error != nil && r.Status != string(actionbatch.Failed):
			return "", nil, invalid(field+".error", "is only for status failure")
		}
		if err := checkActionError(field+".error", r.Error); err != nil {
			return "", nil, err
		}
		if failed == nil && r.Status == string(actionbatch.Failed) {
			failed = r
		}
	}
	if status != "" || lastErr != nil || len(results) == 0 {
		return status, lastErr, nil
	}
	if failed == nil {
		return "success", nil, nil
	}
	e := tasks.ActionError{Action: failed.Action}
	if failed.Error != nil {
		e = *failed.Error
		e.Action = failed.Action
	}
	return "failure", &e, nil
}

// partsOf are the actions of a remembered step: its batch, or its one action.
func partsOf(b tasks.Brief) []string {
	if len(b.Actions) > 0 {
		return b.Actions
	}
	return []string{b.Action}
}

// describeActions is a remembered step's action line of the prompt.
func describeActions(b tasks.Brief) string {
	if len(b.Actions) > 1 {
		return "Actions (one batch): " + strings.Join(b.Actions, "; ")
	}
	return "Action: " + b.Action
}

// actionString is a step's action as its chat message shows it: a batch's parts one per line.
func actionString(s tasks.Step) string {
	if len(s.Actions) > 0 {
		return strings.Join(s.Actions, "\n")
	}
	return s.Action
}

// withResults completes the chat's report message with each outcome of a batch.
func withResults(m chat.Message, r *tasks.Report) chat.Message {
	if r != nil && len(r.Results) > 1 {
		m.Content = trust.Sentence("The batch ran: " + describeResults(r.Results))
	}
	return m
}

// holdBatch applies the payment gate (holdPayment) to every action of a batch in order, the
// model's <Payment> flag to the last one (the action that may submit). The first action the gate
// holds cuts the batch: nothing of it is sent, the step asks the user, and after the approval
// the model's batch passes once it holds that very action again.
func holdBatch(d decision, req Request, mem *tasks.Memory, pg *pagemodel.Page, scope string, rules *gate.Rules) (decision, string) {
	if len(d.batch) < 2 {
		return holdPayment(d, req, mem, pg, scope, rules)
	}
	for i, a := range d.batch {
		part := d
		part.action, part.modelAction, part.batch = a, a.String(), nil
		if i < len(d.batch)-1 {
			part.sections = maps.Clone(d.sections)
			delete(part.sections, "Payment")
		}
		held, id := holdPayment(part, req, mem, pg, scope, rules)
		if id != "" {
			held.batch = []actions.Action{held.action}
			return held, id
		}
		d.note = held.note // an approval the gate noted
	}
	return d, ""
}
