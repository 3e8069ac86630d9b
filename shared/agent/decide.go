package agent

import (
	"context"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/tasks"
)

// decision is the model's choice for a step, after parsing and the server's policies.
type decision struct {
	thought string
	action  actions.Action
	// modelAction is what the model answered, before any policy replaced it.
	modelAction string
	usage       llm.Usage
	latency     time.Duration
	attempts    int
	model       string
	corrected   bool
	parseErrors []string
}

// maxReplyTokens bounds the model's reply: a thought and one action.
const maxReplyTokens = 1024

// decide asks the model for the next action. A reply that does not parse or names an element the
// page lacks gets one corrective retry that quotes the problem; a second bad reply becomes
// fail("…") with the reason, so the step still ends cleanly. Only a failed LLM call is an error.
func (e *Engine) decide(ctx context.Context, system, user string, pg *page.Page) (decision, error) {
	llmCtx, cancel := e.llmContext(ctx)
	defer cancel()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}}
	var d decision
	for round := 0; ; round++ {
		resp, err := e.LLM.Complete(llmCtx, llm.Request{Messages: msgs, MaxTokens: maxReplyTokens})
		d.attempts += resp.Attempts
		d.latency += resp.Latency
		if err != nil {
			return d, err
		}
		d.usage.PromptTokens += resp.Usage.PromptTokens
		d.usage.CompletionTokens += resp.Usage.CompletionTokens
		d.usage.TotalTokens += resp.Usage.TotalTokens
		d.model = e.Model
		if resp.Model != "" {
			d.model = resp.Model
		}
		thought, action, perr := parseDecision(resp.Content, pg)
		if perr == nil {
			d.thought, d.action, d.modelAction = thought, action, action.String()
			return d, nil
		}
		d.parseErrors = append(d.parseErrors, perr.Error())
		if round == 1 || !e.hasTimeFor(llmCtx) {
			if round == 0 {
				d.parseErrors = append(d.parseErrors, "corrective retry skipped: not enough time left")
			}
			reason := "I could not decide on a valid next action: " + perr.Error()
			fail, _ := actions.New("fail", shorten(reason, 500))
			d.thought, d.action, d.modelAction = reason, fail, strings.TrimSpace(resp.Content)
			return d, nil
		}
		d.corrected = true
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: resp.Content},
			llm.Message{Role: llm.RoleUser, Content: "Your reply could not be used: " + perr.Error() +
				"\nReply again with exactly one <Thought>…</Thought> and one <Action>…</Action>, using only the actions listed and element ids present on the current page."},
		)
	}
}

func parseDecision(reply string, pg *page.Page) (string, actions.Action, error) {
	thought, raw, err := actions.ParseReply(reply)
	if err != nil {
		return "", actions.Action{}, err
	}
	a, err := actions.Parse(raw)
	if err != nil {
		return "", actions.Action{}, err
	}
	if err := actions.Validate(a, pg.HasElement); err != nil {
		return "", actions.Action{}, err
	}
	return strings.TrimSpace(thought), a, nil
}

// llmContext leaves WriteReserve of the request's deadline for storing the step.
func (e *Engine) llmContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, dl.Add(-e.writeReserve()))
	}
	return context.WithCancel(ctx)
}

// hasTimeFor reports whether an optional LLM call fits in what is left of ctx.
func (e *Engine) hasTimeFor(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	need := e.CorrectionMinBudget
	if need <= 0 {
		need = DefaultCorrectionMinBudget
	}
	return time.Until(dl) >= need
}

// applyPolicies enforces the server's rules on the model's choice (§4.10): finish() while a
// failure is unverified becomes verifySuccess first.
func (e *Engine) applyPolicies(d decision, history []tasks.Step, report *tasks.Report) decision {
	if d.action.Name() != "finish" || !unverifiedFailure(history, report) {
		return d
	}
	v, err := actions.New("verifySuccess", "Confirm on the current page that the task is complete.")
	if err != nil {
		return d
	}
	d.action = v
	d.thought = strings.TrimSpace(d.thought + " Before finishing, I'll check the page once more, since an earlier step failed.")
	return d
}

// finishNotes tell the model about the policy before it answers, so it rarely needs applying.
func finishNotes(history []tasks.Step, report *tasks.Report) []string {
	if !unverifiedFailure(history, report) {
		return nil
	}
	return []string{"An earlier action failed and success has not been verified since. Use verifySuccess(\"...\") before finish()."}
}

// unverifiedFailure reports whether some action failed and no verifySuccess has succeeded since.
// The result of step i's action arrives as step i+1's PreviousReport, the last one as report.
func unverifiedFailure(history []tasks.Step, report *tasks.Report) bool {
	lastFailure, lastVerified := -1, -1
	for i, s := range history {
		r := report
		if i+1 < len(history) {
			r = history[i+1].PreviousReport
		}
		switch {
		case r.Failed():
			lastFailure = i
		case r != nil && strings.HasPrefix(s.Action, "verifySuccess("):
			lastVerified = i
		}
	}
	return lastFailure >= 0 && lastVerified < lastFailure
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
