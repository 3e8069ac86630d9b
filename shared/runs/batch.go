package runs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/screenagent/backend/shared/actionbatch"
	"github.com/screenagent/backend/shared/trust"
	"github.com/screenagent/backend/shared/trust/gate"
)

// parseToolCalls reads a tool_calls batch: every call as parseTool reads one, the whole within
// the batch rules (actionbatch.Check). For a client that did not declare actionBatch, only the
// first call is read and kept, so that a batch written anyway yields its first action.
func parseToolCalls(thought string, calls []wireTool, page *Snapshot, batch bool) (Reply, error) {
	if len(calls) == 0 {
		return Reply{}, errors.New(`a tool_calls reply needs "tools": [{"name": ..., "arguments": {...}}, ...]`)
	}
	if !batch {
		calls = calls[:1]
	}
	out := Reply{Type: ReplyToolCall, Thought: thought}
	parts := make([]actionbatch.Part, 0, len(calls))
	for i, c := range calls {
		r, err := parseTool(thought, c, page)
		if err == nil && r.Type != ReplyToolCall && len(calls) > 1 {
			err = fmt.Errorf("%s cannot be part of a batch: reply with type %q on its own", c.Name, r.Type)
		}
		if err != nil {
			if len(calls) > 1 {
				return Reply{}, fmt.Errorf("tool %d of the batch: %w", i+1, err)
			}
			return Reply{}, err
		}
		if len(calls) == 1 {
			return r, nil
		}
		out.Tools = append(out.Tools, r.Tool)
		parts = append(parts, actionbatch.Part{Action: r.Tool.String(), Role: batchRole(r.Tool, page), Target: r.Tool.target()})
	}
	if err := actionbatch.Check(parts); err != nil {
		return Reply{}, err
	}
	out.Tool = out.Tools[0]
	return out, nil
}

// batchRole is where the call may stand in a batch: its tool's column in the table, except that
// typing with submit leaves the page and a click on a checkbox, radio button or option does not.
func batchRole(t Tool, page *Snapshot) actionbatch.Role {
	spec, ok := toolByName[t.Name]
	if !ok {
		return actionbatch.Alone
	}
	switch {
	case t.Name == ToolType && t.Submit:
		return actionbatch.Leaves
	case t.Name == ToolClick && togglesInPlace(t.ID, page):
		return actionbatch.InPage
	}
	return spec.batch
}

// togglesInPlace reports whether the element is a checkbox, radio button or option, which a
// click changes without leaving the page.
func togglesInPlace(id string, page *Snapshot) bool {
	if page == nil {
		return false
	}
	e, ok := page.Element(id)
	return ok && actionbatch.Toggles(e.Tag, e.Type, e.Role)
}

// batchPrompt explains tool_calls to the model of a client that runs batches, from the table.
func batchPrompt() string {
	var inPage, last []string
	for _, t := range tools {
		switch t.batch {
		case actionbatch.InPage:
			inPage = append(inPage, t.name)
		case actionbatch.Leaves:
			last = append(last, t.name)
		}
	}
	return "\nBatches: when several fields of the current page need filling, you may reply with several tool calls at once:\n" +
		`{"type": "tool_calls", "tools": [{"name": "type", "arguments": {"id": "agent-2", "text": "Ada"}}, {"name": "type", "arguments": {"id": "agent-3", "text": "Lovelace"}}, {"name": "click", "arguments": {"id": "agent-9"}}]}` + "\n" +
		actionbatch.Rules + "\n" +
		"- Anywhere in a batch: " + strings.Join(inPage, ", ") + " (without submit); click on a checkbox, radio button or option.\n" +
		"- Only as the last call: " + strings.Join(last, ", ") + " (click on any other element), or type with submit true.\n" +
		"- Every other tool is a tool_call of its own; final and ask_user are never in a batch.\n"
}

// toolViews are the calls as the client executes them.
func toolViews(ts []Tool) []ToolView {
	out := make([]ToolView, len(ts))
	for i := range ts {
		out[i] = *toolView(&ts[i])
	}
	return out
}

// describeParts tells the model what became of each call of its last batch.
func describeParts(parts []Result, calls []Tool) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		name := fmt.Sprintf("call %d", i+1)
		if i < len(calls) {
			name = trust.OneLine(trust.Neutralize(calls[i].String()))
		}
		switch {
		case p.Skipped:
			out[i] = name + " → not run (an earlier call failed or the page changed)"
		default:
			out[i] = name + " → " + trust.Quote(p.Observation())
		}
	}
	return strings.Join(out, "; ")
}

// fromParts is the result of a batch as one, for a client that sent only lastActionResults:
// the first failure, else success.
func fromParts(parts []Result) *Result {
	if len(parts) == 0 {
		return nil
	}
	for i, p := range parts {
		if !p.Success && !p.Skipped {
			return &Result{Error: fmt.Sprintf("call %d of %d failed: %s", i+1, len(parts), p.Observation()), Parts: parts}
		}
	}
	ran := 0
	for _, p := range parts {
		if !p.Skipped {
			ran++
		}
	}
	return &Result{Success: true, Message: fmt.Sprintf("%d of %d calls ran", ran, len(parts)), Parts: parts}
}

// withParts joins the client's results of a batch to its result: a client that sent only
// lastActionResults gets the result they make (fromParts).
func withParts(r *Result, parts []Result) *Result {
	if len(parts) == 0 {
		return r
	}
	if r == nil {
		return fromParts(parts)
	}
	joined := *r
	joined.Parts = parts
	return &joined
}

// callsOf are the calls the client executes for an entry: its batch, or its one call.
func callsOf(e Entry) []Tool {
	if len(e.Tools) > 0 {
		return e.Tools
	}
	if e.Tool != nil {
		return []Tool{*e.Tool}
	}
	return nil
}

// joinCalls identifies a batch by its calls in order, for loop detection.
func joinCalls(ts []Tool, key func(Tool) string) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = key(t)
	}
	return strings.Join(parts, " + ")
}

// batchAction is a batch as the history of the prompt shows it.
func batchAction(e Entry) string {
	return "batch: " + joinCalls(e.Tools, Tool.String)
}

// gateCalls applies the security gate to every call of the step in order (the model's payment
// flag to the last call, the one that may submit). In careful mode the first risky call cuts the
// batch there: the step asks the user, and approval runs the batch up to and including the held
// call (the calls after it are decided again on the next page). In autonomous mode every finding
// is noted and the batch runs whole.
func gateCalls(entry *Entry, next *Run, page *Snapshot, rules *gate.Rules, mode Mode, scope string, payment bool) {
	calls := callsOf(*entry)
	var warnings []string
	for i, t := range calls {
		f, risky := checkGate(t, page, rules, scope, payment && i == len(calls)-1)
		if !risky || approvedSecretType(next, &t) {
			continue
		}
		if mode == ModeCareful {
			held := t
			entry.Action, entry.Question, entry.Warning, entry.Tool = ToolAskUser, f.Question, f.held(), &held
			entry.Tools = nil
			if i > 0 {
				entry.Tools = append([]Tool(nil), calls[:i+1]...)
			}
			next.Status, next.PendingQuestion, next.PendingTool, next.PendingTools = StatusWaitingUser, f.Question, &held, entry.Tools
			next.PendingConfirmation = f.ConfirmationID
			return
		}
		warnings = append(warnings, f.allowed())
	}
	entry.Warning = strings.Join(warnings, "; ")
}
