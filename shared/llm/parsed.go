package llm

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Parsed is the outcome of CompleteParsed: the value of the first reply parse accepted, or why
// none was usable, with the cost of all the calls made.
type Parsed[T any] struct {
	Value T
	// Valid is false when no reply could be used; ParseErrors says why.
	Valid bool
	// Reply is the last reply received.
	Reply string
	// ParseErrors holds one entry per refused reply, and a note when the correction was skipped.
	ParseErrors []string
	// Corrected is true when a corrective call was made.
	Corrected bool
	Usage     Usage
	Latency   time.Duration
	Attempts  int
	// Model is the model the provider reported (empty when it reported none).
	Model string
}

// CompleteParsed asks for a reply that parse accepts. A refused reply gets one corrective call
// that quotes parse's error followed by instruction, as long as at least minBudget of ctx's time
// remains; a second refusal, or no time for the correction, ends with Valid false. Only a failed
// call is an error, and its attempts are still counted. Both engines (interact and the run API)
// use it, so they correct the model the same way.
func CompleteParsed[T any](ctx context.Context, c Client, req Request, parse func(reply string) (T, error), instruction string, minBudget time.Duration) (Parsed[T], error) {
	var p Parsed[T]
	msgs := append([]Message(nil), req.Messages...)
	for round := 0; ; round++ {
		req.Messages = msgs
		resp, err := c.Complete(ctx, req)
		p.Latency += resp.Latency
		p.Attempts += resp.Attempts
		if err != nil {
			var le *Error
			if errors.As(err, &le) {
				p.Attempts += le.Attempts
			}
			return p, err
		}
		p.Usage.PromptTokens += resp.Usage.PromptTokens
		p.Usage.CompletionTokens += resp.Usage.CompletionTokens
		p.Usage.TotalTokens += resp.Usage.TotalTokens
		if resp.Model != "" {
			p.Model = resp.Model
		}
		p.Reply = strings.TrimSpace(resp.Content)
		v, perr := parse(resp.Content)
		if perr == nil {
			p.Value, p.Valid = v, true
			return p, nil
		}
		p.ParseErrors = append(p.ParseErrors, perr.Error())
		if round == 1 {
			return p, nil
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < minBudget {
			p.ParseErrors = append(p.ParseErrors, "corrective retry skipped: not enough time left")
			return p, nil
		}
		p.Corrected = true
		msgs = append(msgs,
			Message{Role: RoleAssistant, Content: resp.Content},
			Message{Role: RoleUser, Content: "Your reply could not be used: " + perr.Error() + "\n" + instruction},
		)
	}
}

// WithReserve bounds ctx for LLM calls so that reserve of its deadline is left for storing what
// they decided; without a deadline it applies fallback (none when fallback is 0).
func WithReserve(ctx context.Context, reserve, fallback time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, dl.Add(-reserve))
	}
	if fallback > 0 {
		return context.WithTimeout(ctx, fallback)
	}
	return context.WithCancel(ctx)
}
