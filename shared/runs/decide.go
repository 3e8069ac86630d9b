package runs

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/trust"
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
// allows (llm.CompleteParsed). Only a failed LLM call is an error.
func (s *Service) decide(ctx context.Context, system, user string, page *Snapshot, secrets []trust.NamedSecret, typed *trust.Secrets, batch bool) (decision, error) {
	llmCtx, cancel := llm.WithReserve(ctx, orDefault(s.WriteReserve, DefaultWriteReserve), orDefault(s.LLMBudget, DefaultLLMBudget))
	defer cancel()
	req := llm.Request{
		Messages:  []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		MaxTokens: maxReplyTokens,
	}
	var unparsed []string
	p, err := llm.CompleteParsed(llmCtx, s.LLM, req, func(reply string) (Reply, error) {
		r, err := parseReply(reply, page, batch)
		if err == nil {
			err = checkSecretUse(r, secrets, page)
		} else {
			// The corrective retry, the client's message and the log quote the error: never a
			// typed secret, nor a value the reply may have meant for a secret field.
			unparsed = append(unparsed, unparsedValues(reply, page)...)
			err = errors.New(typed.With(unparsed...).Redact(err.Error()))
		}
		return r, err
	},
		"Respond again with ONLY one JSON object of the documented form, using only the tools listed and element ids on the current page.",
		orDefault(s.CorrectionMinBudget, DefaultCorrectionMinBudget))
	d := decision{
		reply: p.Value, latency: p.Latency, attempts: p.Attempts, model: s.Model, corrected: p.Corrected,
		usage: Usage{PromptTokens: p.Usage.PromptTokens, CompletionTokens: p.Usage.CompletionTokens},
	}
	if p.Model != "" {
		d.model = p.Model
	}
	if err == nil && !p.Valid {
		d.invalid = strings.Join(p.ParseErrors, "; ")
	}
	return d, err
}
