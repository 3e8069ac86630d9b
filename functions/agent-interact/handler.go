package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/agent"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/debugmode"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/metrics"
)

type interactor interface {
	Interact(ctx context.Context, req agent.Request) (agent.Response, error)
}

// metricsEmitter records a step's figures (CloudWatch EMF).
type metricsEmitter interface {
	Emit(dimensions map[string]string, values ...metrics.Value) error
}

func newHandler(engine interactor, prefs debugmode.PreferencesReader, rec metricsEmitter) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		raw, err := httpapi.ReadJSONBody(r)
		if err != nil {
			return err
		}
		var body agent.Input
		if err := httpapi.Unmarshal(raw, &body); err != nil {
			return err
		}
		req, err := agent.NewRequest(body)
		if err != nil {
			return err
		}
		req.Identity = id
		if req.IdempotencyKey, req.RequestHash, err = httpapi.IdempotencyKey(r, raw); err != nil {
			return err
		}
		if req.Debug, err = debugmode.Enabled(r, prefs, id); err != nil {
			return err
		}
		resp, err := engine.Interact(r.Context(), req)
		if err != nil {
			return httpError(err)
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("taskId", resp.TaskID), slog.Int("step", resp.CurrentStep),
			slog.String("action", resp.LogAction), slog.String("taskStatus", resp.Status), slog.String("cache", resp.Metrics.Cache),
			slog.Int("promptTokens", resp.Metrics.PromptTokens), slog.Int("completionTokens", resp.Metrics.CompletionTokens))
		m := resp.Metrics
		_ = rec.Emit(map[string]string{"Route": "interact"},
			metrics.Value{Name: "Steps", Unit: metrics.Count, Value: 1},
			metrics.Value{Name: "PromptTokens", Unit: metrics.Count, Value: float64(m.PromptTokens)},
			metrics.Value{Name: "CompletionTokens", Unit: metrics.Count, Value: float64(m.CompletionTokens)},
			metrics.Value{Name: "LLMLatency", Unit: metrics.Milliseconds, Value: float64(m.LLMLatencyMs)},
			metrics.Value{Name: "LLMAttempts", Unit: metrics.Count, Value: float64(m.LLMAttempts)},
			metrics.Value{Name: "StepDuration", Unit: metrics.Milliseconds, Value: float64(m.DurationMs)},
		)
		httpapi.WriteData(w, http.StatusOK, resp)
		return nil
	})
}

// httpError maps the engine's errors to the contract (§4.11, §4.16).
func httpError(err error) error {
	switch {
	case errors.Is(err, agent.ErrTaskNotFound):
		return httpapi.NewError(httpapi.CodeTaskNotFound, "Task not found.")
	case errors.Is(err, agent.ErrTaskCompleted):
		return httpapi.NewError(httpapi.CodeTaskCompleted, "The task is already finished; start a new task.")
	case errors.Is(err, agent.ErrMaxSteps):
		return httpapi.NewError(httpapi.CodeMaxStepsExceeded, "The task reached its maximum number of steps and was marked failed.")
	case errors.Is(err, agent.ErrSessionNotFound):
		return httpapi.NewError(httpapi.CodeSessionNotFound, "Session not found.")
	case errors.Is(err, agent.ErrSessionMismatch):
		return httpapi.Validation("sessionId", "does not belong to the task")
	case errors.Is(err, agent.ErrConflict):
		return httpapi.Wrap(httpapi.CodeResourceConflict, "Another request is updating this task; retry after it completes.", err)
	case errors.Is(err, agent.ErrIdempotencyMismatch):
		return httpapi.NewError(httpapi.CodeResourceConflict, "This Idempotency-Key was already used with a different request.")
	case errors.Is(err, agent.ErrLLM):
		// Retrying cannot help a deployment without a model: say what to set instead.
		var nc *llm.NotConfiguredError
		if errors.As(err, &nc) {
			e := httpapi.Wrap(httpapi.CodeLLM, nc.Advice()+" The task is unchanged.", err)
			e.Details = map[string]any{"reason": "not_configured", "missing": nc.Missing}
			return e
		}
		return httpapi.Wrap(httpapi.CodeLLM, "The language model is unavailable; the task is unchanged, retry the step.", err)
	}
	return err
}
