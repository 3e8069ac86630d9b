package app

import (
	"context"
	"errors"
	"os"

	"github.com/screenagent/backend/shared/llm"
)

// LLM builds the configured LLM client once at cold start (reading its key from Secrets Manager
// when so configured). Without a configured LLM the function still starts and its calls fail
// with LLM_ERROR, so a missing key shows as the contract's error, not a gateway 502.
func (a *App) LLM(ctx context.Context) (llm.Client, llm.Info, error) {
	c, info, err := llm.FromConfig(ctx, a.Config, llm.Setup{Getenv: os.Getenv})
	if errors.Is(err, llm.ErrNotConfigured) {
		a.Logger.Warn("LLM not configured: agent steps will fail with LLM_ERROR", "error", err.Error())
		return llm.Unconfigured{Err: err}, info, nil
	}
	if err != nil {
		return nil, info, err
	}
	return c, info, nil
}
