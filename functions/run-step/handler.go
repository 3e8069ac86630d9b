package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/actionbatch"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/metrics"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
	"github.com/screenagent/backend/shared/trust"
)

type stepper interface {
	Step(ctx context.Context, req runs.StepRequest) (runs.StepResponse, error)
}

// metricsEmitter records a step's figures (CloudWatch EMF).
type metricsEmitter interface {
	Emit(dimensions map[string]string, values ...metrics.Value) error
}

type stepBody struct {
	Snapshot         json.RawMessage `json:"snapshot"`
	LastActionResult *resultBody     `json:"lastActionResult"`
	SecretNames      []string        `json:"secretNames"`
	// LastActionResults are the results of each call of the last step's batch, in order.
	LastActionResults []resultBody `json:"lastActionResults"`
	// Cache false opts the step out of the action cache.
	Cache *bool `json:"cache"`
}

// resultBody is the ToolResult of the last action; its data is not read (the snapshot shows the page).
type resultBody struct {
	Success *bool  `json:"success"`
	Message string `json:"message"`
	Error   string `json:"error"`
	// Skipped: a call of a batch the client did not run.
	Skipped bool `json:"skipped"`
}

// maxResultText bounds what is kept of a result's message and error: they only inform the model,
// so a long one (a stack trace) is cut rather than refused.
const maxResultText = 1_000

func newHandler(svc stepper, rec metricsEmitter) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		runID, err := runapi.RunID(r)
		if err != nil {
			return err
		}
		raw, err := runapi.ReadBody(r)
		if err != nil {
			return err
		}
		req, err := decode(raw)
		if err != nil {
			return err
		}
		req.TenantID, req.UserID, req.RunID = id.TenantID, id.UserID, runID
		if req.IdempotencyKey, req.RequestHash, err = httpapi.IdempotencyKey(r, raw); err != nil {
			return err
		}
		resp, err := svc.Step(r.Context(), req)
		if err != nil {
			return err
		}
		m := resp.Metrics
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", runID), slog.Int("step", resp.State.CurrentStep),
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

// decode reads a step body: a JSON object whose fields may both be null or absent ({} is a step
// without news). An empty body is refused like on every other route: it is not an object.
func decode(raw []byte) (runs.StepRequest, error) {
	var req runs.StepRequest
	var body stepBody
	if err := httpapi.Unmarshal(raw, &body); err != nil {
		return req, err
	}
	snap, err := runs.DecodeSnapshot(body.Snapshot)
	if err != nil {
		return req, err
	}
	req.Snapshot = snap
	if body.SecretNames != nil {
		if req.SecretNames, err = trust.ParseSecretNames("secretNames", body.SecretNames); err != nil {
			return req, err
		}
	}
	req.NoCache = body.Cache != nil && !*body.Cache
	if res := body.LastActionResult; res != nil {
		if res.Success == nil {
			return req, httpapi.Validation("lastActionResult.success", "is required")
		}
		req.LastActionResult = &runs.Result{Success: *res.Success, Message: cut(res.Message), Error: cut(res.Error)}
	}
	if len(body.LastActionResults) > actionbatch.Max {
		return req, httpapi.Validation("lastActionResults", fmt.Sprintf("must have at most %d entries", actionbatch.Max))
	}
	for i, res := range body.LastActionResults {
		if res.Success == nil {
			return req, httpapi.Validation(fmt.Sprintf("lastActionResults[%d].success", i), "is required")
		}
		if res.Skipped && *res.Success {
			return req, httpapi.Validation(fmt.Sprintf("lastActionResults[%d].skipped", i), "a skipped call cannot have succeeded")
		}
		req.LastActionResults = append(req.LastActionResults, runs.Result{Success: *res.Success, Message: cut(res.Message), Error: cut(res.Error), Skipped: res.Skipped})
	}
	return req, nil
}

func cut(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= maxResultText {
		return s
	}
	return string([]rune(s)[:maxResultText-1]) + "…"
}
