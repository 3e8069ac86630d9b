package llmtest

import (
	"context"

	"github.com/screenagent/backend/shared/llm"
)

// Held is a model client whose calls answer only once Release is closed, so that a step's LLM
// call lasts until the test has seen what it waits for (a lease taken, a key looked up),
// whatever the machine's load.
type Held struct {
	llm.Client
	Release <-chan struct{}
}

// Complete waits for Release (or the call's end), then asks the wrapped client.
func (h Held) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	select {
	case <-h.Release:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	return h.Client.Complete(ctx, req)
}
