package agent

import (
	"context"
	"errors"
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
	// note says what the server did about the choice, for later prompts ("" for nothing).
	note        string
	usage       llm.Usage
	latency     time.Duration
	attempts    int
	model       string
	corrected   bool
	parseErrors []string
}

// maxReplyTokens bounds the model's reply: a thought and one action.
const maxReplyTokens = 1024

// decide asks the model for the next action. A reply that does not parse, names an element the
// page lacks, or repeats an action the loop guard refuses gets one corrective retry that quotes
// the problem (llm.CompleteParsed). A second bad reply becomes fail("…") with the reason, so the
// step still ends cleanly, except for a model that insists on a refused loop: then the user is
// asked what to do rather than burning steps. Only a failed LLM call is an error.
func (e *Engine) decide(ctx context.Context, system, user string, pg *page.Page, tried map[string]int) (decision, error) {
	llmCtx, cancel := llm.WithReserve(ctx, e.writeReserve(), 0)
	defer cancel()
	type choice struct {
		thought string
		action  actions.Action
	}
	var lastErr error
	parse := func(reply string) (choice, error) {
		thought, a, err := parseDecision(reply, pg)
		if err == nil {
			err = checkLoop(a, tried)
		}
		lastErr = err
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
	var loop loopError
	if errors.As(lastErr, &loop) {
		ask, _ := actions.New("askUser", "I have tried "+loop.action+" several times and the page does not change. How would you like me to continue?")
		d.thought, d.action, d.modelAction = "I keep trying the same thing without effect, so I'd rather ask you.", ask, loop.action
		d.note = "the server refused " + loop.action + " (repeated on an unchanged page) and asked the user instead"
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
func (e *Engine) applyPolicies(d decision, mem *tasks.Memory) decision {
	if d.action.Name() != "finish" || !unverifiedFailure(mem) {
		return d
	}
	v, err := actions.New("verifySuccess", "Confirm on the current page that the task is complete.")
	if err != nil {
		return d
	}
	d.action = v
	d.thought = strings.TrimSpace(d.thought + " Before finishing, I'll check the page once more, since an earlier step failed.")
	d.note = "the server asked for a verification before finish()"
	return d
}

// finishNotes tell the model about the policy before it answers, so it rarely needs applying.
func finishNotes(mem *tasks.Memory) []string {
	if !unverifiedFailure(mem) {
		return nil
	}
	return []string{"An earlier action failed and success has not been verified since. Use verifySuccess(\"...\") before finish()."}
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
