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
// page lacks gets one corrective retry that quotes the problem (llm.CompleteParsed); a second bad
// reply becomes fail("…") with the reason, so the step still ends cleanly. Only a failed LLM call
// is an error.
func (e *Engine) decide(ctx context.Context, system, user string, pg *page.Page) (decision, error) {
	llmCtx, cancel := llm.WithReserve(ctx, e.writeReserve(), 0)
	defer cancel()
	type choice struct {
		thought string
		action  actions.Action
	}
	parse := func(reply string) (choice, error) {
		thought, a, err := parseDecision(reply, pg)
		return choice{thought, a}, err
	}
	minBudget := e.CorrectionMinBudget
	if minBudget <= 0 {
		minBudget = DefaultCorrectionMinBudget
	}
	req := llm.Request{
		Messages:  []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		MaxTokens: maxReplyTokens,
	}
	p, err := llm.CompleteParsed(llmCtx, e.LLM, req, parse,
		"Reply again with exactly one <Thought>…</Thought> and one <Action>…</Action>, using only the actions listed and element ids present on the current page.",
		minBudget)
	d := decision{
		usage: p.Usage, latency: p.Latency, attempts: p.Attempts, model: e.Model,
		corrected: p.Corrected, parseErrors: p.ParseErrors,
	}
	if p.Model != "" {
		d.model = p.Model
	}
	if err != nil {
		return d, err
	}
	if p.Valid {
		d.thought, d.action, d.modelAction = p.Value.thought, p.Value.action, p.Value.action.String()
		return d, nil
	}
	reason := "I could not decide on a valid next action: " + p.ParseErrors[0]
	fail, _ := actions.New("fail", shorten(reason, 500))
	d.thought, d.action, d.modelAction = reason, fail, p.Reply
	return d, nil
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
