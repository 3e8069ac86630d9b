package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/agent"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/debugmode"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/metrics"
	"github.com/screenagent/backend/shared/tasks"
)

// Limits of the request (DESIGN.md "Limits").
const (
	maxURL          = 2048
	maxQuery        = 10_000
	maxDOM          = 500_000
	maxErrorMessage = 2_000
	maxErrorCode    = 100
	maxErrorAction  = 1_000
)

type interactor interface {
	Interact(ctx context.Context, req agent.Request) (agent.Response, error)
}

type interactBody struct {
	URL              *string            `json:"url"`
	Query            *string            `json:"query"`
	DOM              *string            `json:"dom"`
	TaskID           string             `json:"taskId"`
	SessionID        string             `json:"sessionId"`
	LastActionStatus string             `json:"lastActionStatus"`
	LastActionError  *tasks.ActionError `json:"lastActionError"`
	// ExtractedVariables are values the client kept for the task (SERVER_QA_ROADMAP.md §3).
	ExtractedVariables map[string]string `json:"extractedVariables"`
}

// metricsEmitter records a step's figures (CloudWatch EMF).
type metricsEmitter interface {
	Emit(dimensions map[string]string, values ...metrics.Value) error
}

func newHandler(engine interactor, prefs debugmode.PreferencesReader, rec metricsEmitter) http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, err := auth.Require(r.Context())
		if err != nil {
			return err
		}
		raw, err := httpapi.ReadJSONBody(r)
		if err != nil {
			return err
		}
		var body interactBody
		if err := httpapi.Unmarshal(raw, &body); err != nil {
			return err
		}
		req, err := validate(body)
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
			slog.String("action", resp.Action), slog.String("taskStatus", resp.Status),
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

func validate(b interactBody) (agent.Request, error) {
	var req agent.Request
	switch {
	case b.URL == nil || *b.URL == "":
		return req, httpapi.Validation("url", "is required")
	case len(*b.URL) > maxURL:
		return req, httpapi.Validation("url", "must be at most 2048 characters")
	}
	u, err := url.Parse(*b.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return req, httpapi.Validation("url", "must be an absolute http(s) URL")
	}
	if b.Query == nil || strings.TrimSpace(*b.Query) == "" {
		return req, httpapi.Validation("query", "is required")
	}
	if utf8.RuneCountInString(*b.Query) > maxQuery {
		return req, httpapi.Validation("query", "must be at most 10000 characters")
	}
	if b.DOM == nil || strings.TrimSpace(*b.DOM) == "" {
		return req, httpapi.Validation("dom", "is required")
	}
	if utf8.RuneCountInString(*b.DOM) > maxDOM {
		return req, httpapi.Validation("dom", "must be at most 500000 characters")
	}
	for _, f := range []struct{ name, value string }{{"taskId", b.TaskID}, {"sessionId", b.SessionID}} {
		if f.value == "" {
			continue
		}
		if parsed, err := uuid.Parse(f.value); err != nil || parsed.String() != strings.ToLower(f.value) {
			return req, httpapi.Validation(f.name, "must be a UUID")
		}
	}
	report, err := validateReport(b.LastActionStatus, b.LastActionError)
	if err != nil {
		return req, err
	}
	if err := agent.ValidateVariables(b.ExtractedVariables); err != nil {
		return req, err
	}
	return agent.Request{
		URL: *b.URL, Query: strings.TrimSpace(*b.Query), DOM: *b.DOM,
		TaskID: strings.ToLower(b.TaskID), SessionID: strings.ToLower(b.SessionID), Report: report,
		Variables: b.ExtractedVariables,
	}, nil
}

// validateReport reads the client's report on its last action. An error without a status means
// the action failed.
func validateReport(status string, e *tasks.ActionError) (*tasks.Report, error) {
	switch status {
	case "":
		if e == nil {
			return nil, nil
		}
		status = "failure"
	case "success":
		if e != nil {
			return nil, httpapi.Validation("lastActionError", "must be absent when lastActionStatus is success")
		}
	case "failure":
	default:
		return nil, httpapi.Validation("lastActionStatus", "must be success or failure")
	}
	if e != nil {
		switch {
		case utf8.RuneCountInString(e.Message) > maxErrorMessage:
			return nil, httpapi.Validation("lastActionError.message", "must be at most 2000 characters")
		case utf8.RuneCountInString(e.Code) > maxErrorCode:
			return nil, httpapi.Validation("lastActionError.code", "must be at most 100 characters")
		case utf8.RuneCountInString(e.Action) > maxErrorAction:
			return nil, httpapi.Validation("lastActionError.action", "must be at most 1000 characters")
		case e.ElementID != nil && *e.ElementID < 0:
			return nil, httpapi.Validation("lastActionError.elementId", "must not be negative")
		}
	}
	return &tasks.Report{Status: status, Error: e}, nil
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
