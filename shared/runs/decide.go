package runs

import (
	"context"
	"errors"
	"time"

	"github.com/screenagent/backend/shared/llm"
)

// decision is the model's reply for a step, or why none could be used.
type decision struct {
	reply Reply
	// invalid says why the model gave no usable reply, even after the corrective retry.
	invalid   string
	usage     Usage
	latency   time.Duration
	attempts  int
	model     string
	corrected bool
}

func (d decision) metrics() StepMetrics {
	return StepMetrics{
		PromptTokens: d.usage.PromptTokens, CompletionTokens: d.usage.CompletionTokens,
		LLMLatencyMs: d.latency.Milliseconds(), LLMAttempts: d.attempts, CorrectiveRetry: d.corrected,
	}
}

// decide asks the model for the next action. The LLM client retries transport failures itself
// (twice); a reply that does not parse gets one corrective retry quoting the problem, when time
// allows. Only a failed LLM call is an error.
func (s *Service) decide(ctx context.Context, system, user string, page *Snapshot) (decision, error) {
	llmCtx, cancel := s.llmContext(ctx)
	defer cancel()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}}
	var d decision
	for round := 0; ; round++ {
		start := time.Now()
		resp, err := s.LLM.Complete(llmCtx, llm.Request{Messages: msgs, MaxTokens: maxReplyTokens})
		d.latency += time.Since(start)
		if err != nil {
			var le *llm.Error
			if errors.As(err, &le) {
				d.attempts += le.Attempts
			}
			return d, err
		}
		d.attempts += resp.Attempts
		d.usage.PromptTokens += resp.Usage.PromptTokens
		d.usage.CompletionTokens += resp.Usage.CompletionTokens
		d.model = s.Model
		if resp.Model != "" {
			d.model = resp.Model
		}
		reply, perr := ParseReply(resp.Content, page)
		if perr == nil {
			d.reply = reply
			return d, nil
		}
		if round == 1 {
			d.invalid = perr.Error()
			return d, nil
		}
		if !s.hasTimeFor(llmCtx) {
			d.invalid = perr.Error() + " (no time was left to ask again)"
			return d, nil
		}
		d.corrected = true
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: resp.Content},
			llm.Message{Role: llm.RoleUser, Content: "Your reply could not be used: " + perr.Error() +
				"\nRespond again with ONLY one JSON object of the documented form, using only the tools listed and element ids on the current page."},
		)
	}
}

// llmContext leaves WriteReserve of the request's deadline for storing the step.
func (s *Service) llmContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, dl.Add(-orDefault(s.WriteReserve, DefaultWriteReserve)))
	}
	return context.WithTimeout(ctx, orDefault(s.LLMBudget, DefaultLLMBudget))
}

// hasTimeFor reports whether a corrective call fits in what is left of ctx.
func (s *Service) hasTimeFor(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) >= orDefault(s.CorrectionMinBudget, DefaultCorrectionMinBudget)
}
