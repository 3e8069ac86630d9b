package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/metrics"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

type stepper interface {
	Step(ctx context.Context, req runs.StepRequest) (runs.StepResponse, error)
}

// metricsEmitter records a step's figures (CloudWatch EMF).
type metricsEmitter interface {
	Emit(dimensions map[string]string, values ...metrics.Value) error
}

func newHandler(svc stepper, rec metricsEmitter) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		req, err := runapi.DecodeStep(r, id)
		if err != nil {
			return err
		}
		resp, err := svc.Step(r.Context(), req)
		if err != nil {
			return err
		}
		m := resp.Metrics
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", req.RunID), slog.Int("step", resp.State.CurrentStep),
			slog.String("action", resp.Action), slog.Int("promptTokens", m.PromptTokens),
			slog.Int("completionTokens", m.CompletionTokens), slog.Bool("replayed", m.Replayed), slog.String("cache", m.Cache))
		if !m.Replayed {
			_ = rec.Emit(map[string]string{"Route": "runStep"},
				metrics.Value{Name: "Steps", Unit: metrics.Count, Value: 1},
				metrics.Value{Name: "PromptTokens", Unit: metrics.Count, Value: float64(m.PromptTokens)},
				metrics.Value{Name: "CompletionTokens", Unit: metrics.Count, Value: float64(m.CompletionTokens)},
				metrics.Value{Name: "LLMLatency", Unit: metrics.Milliseconds, Value: float64(m.LLMLatencyMs)},
				metrics.Value{Name: "LLMAttempts", Unit: metrics.Count, Value: float64(m.LLMAttempts)},
			)
		}
		if m.Cache != "" {
			// The run API's bodies keep the specification's shapes: whether the action came from the
			// action cache is said in a header.
			w.Header().Set("X-Action-Cache", m.Cache)
		}
		httpapi.WriteJSON(w, http.StatusOK, resp)
		return nil
	})
}
