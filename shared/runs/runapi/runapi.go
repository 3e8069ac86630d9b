// Package runapi is the HTTP edge shared by the run API's functions (/agent/run/...): its error
// body {"error": code, "message": ...} (PROXY_SERVER_API.md, "Error Handling"), Bearer
// authentication and the tenant's rate limit answering in that body, the run id of the path, and
// the Idempotency-Key header.
package runapi

import (
	"context"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"github.com/screenagent/backend/shared/validation"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/ratelimit"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runsdb"
	"github.com/screenagent/backend/shared/trust/gate"
)

type errorBody struct {
	Error   httpapi.Code `json:"error"`
	Message string       `json:"message"`
}

// LLMRetryAfter is the Retry-After, in seconds, of a step the model could not decide.
const LLMRetryAfter = 5

// WriteError writes err in the run API's error body with the status of its code. The cause of a
// server error goes to the request's log line, never to the client. LLM_ERROR answers 503 here
// (500 on /api/*): the run is unchanged and the thin client is meant to retry the step.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e := httpapi.AsError(httpError(err))
	status := e.Status()
	if e.Code == httpapi.CodeLLM {
		status = http.StatusServiceUnavailable
	}
	if e.Cause != nil || status >= 500 {
		attrs := []slog.Attr{slog.String("code", string(e.Code))}
		if e.Cause != nil {
			attrs = append(attrs, slog.String("error", e.Cause.Error()))
		}
		httpapi.AddLogAttrs(r.Context(), attrs...)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	httpapi.WriteJSON(w, status, errorBody{Error: e.Code, Message: e.Message})
}

// HandlerFunc is a handler that returns its error, written by WriteError.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

func (h HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		WriteError(w, r, err)
	}
}

// Authed is auth.Handler answering in the run API's error body: h gets the request's identity.
func Authed(h func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error) HandlerFunc {
	return HandlerFunc(auth.Handler(h))
}

// httpError maps the run service's and authentication's errors to the API's codes.
func httpError(err error) error {
	conflict := func(msg string) error { return httpapi.Wrap(httpapi.CodeResourceConflict, msg, err) }
	var notConfigured *llm.NotConfiguredError
	var llmErr *runs.LLMError
	switch {
	case errors.As(err, &notConfigured):
		return &httpapi.Error{Code: httpapi.CodeLLM, Message: notConfigured.Advice() + " The run is unchanged.", RetryAfter: LLMRetryAfter, Cause: err}
	case errors.As(err, &llmErr):
		return &httpapi.Error{Code: httpapi.CodeLLM, Message: llmErr.Message, RetryAfter: LLMRetryAfter, Cause: err}
	case errors.Is(err, runs.ErrNotFound):
		return httpapi.NewError(httpapi.CodeNotFound, "Run not found or expired.")
	case errors.Is(err, runs.ErrFinished):
		return conflict("The run has already finished; start a new run.")
	case errors.Is(err, runs.ErrWaitingUser):
		return conflict("The run is waiting for the user's answer: POST /agent/run/{runId}/answer first.")
	case errors.Is(err, runs.ErrNotWaiting):
		return conflict("The run is not waiting for an answer.")
	case errors.Is(err, runs.ErrIdempotencyMismatch):
		return conflict("This Idempotency-Key was already used with a different request.")
	case errors.Is(err, runs.ErrConflict):
		return conflict("Another request is updating this run; retry after it completes.")
	}
	return auth.HTTPError(err)
}

// edge answers the run API's refusals in its own error body.
var edge = app.Edge{AuthError: WriteError, Refuse: ratelimit.RefuseRunAPI}

// Protect admits only authenticated requests within the tenant's run API rate limit (see
// app.ProtectWith), both refusals answering in the run API's error body.
func Protect(a *app.App, h http.Handler) (http.Handler, error) {
	return a.ProtectWith(edge, ratelimit.ClassRuns, h)
}

// Setup completes a function's run service before its handler is built (e.g. the step's LLM).
type Setup func(ctx context.Context, a *app.App, svc *runs.Service) error

// Main is a run API function's main (app.Main on route): a run service on the runs store
// (NewStore), completed by setup, and the handler built on it behind Protect.
func Main(route string, handler func(*runs.Service) http.Handler, setup ...Setup) {
	app.Main(route, func(ctx context.Context, a *app.App) (http.Handler, error) {
		store, err := NewStore(a)
		if err != nil {
			return nil, err
		}
		svc := &runs.Service{Store: store, Logger: a.Logger}
		for _, s := range setup {
			if err := s(ctx, a, svc); err != nil {
				return nil, err
			}
		}
		return Protect(a, handler(svc))
	})
}

// NewStore is the runs store with the deployment's retention for finished runs.
func NewStore(a *app.App) (*runsdb.Store, error) {
	policy, err := a.Retention()
	if err != nil {
		return nil, err
	}
	r := runs.DefaultRetention
	r.Finished = policy.Tasks.Finished
	return runsdb.New(a.DynamoDB, a.Config.TasksTable, r), nil
}

// TenantGate reads the tenants' additions to the security gate from the Accounts table.
type TenantGate struct{ Accounts *accountsdb.Store }

// GateCustom returns the tenant's risky words and URL patterns.
func (g TenantGate) GateCustom(ctx context.Context, tenantID string) (gate.Custom, error) {
	s, err := g.Accounts.GateSettings(ctx, tenantID)
	if err != nil {
		return gate.Custom{}, err
	}
	return gate.Custom{Words: s.Words, URLPatterns: s.URLPatterns}, nil
}

// RunID returns the path's {runId} (the route's pattern, mounted by app.Main) in lower case, the
// form runs are issued with; anything but a canonical UUID is 400 VALIDATION_ERROR naming runId,
// as a malformed id is on every other route.
func RunID(r *http.Request) (string, error) {
	return validation.ParseID("runId", r.PathValue("runId"))
}

// ReadBody reads a run API request body (httpapi.ReadBody) whose Content-Type is JSON, absent,
// or text/plain: the documented client posts /answer with fetch and no headers, which sends its
// JSON string as text/plain. Any other type is 415 UNSUPPORTED_MEDIA_TYPE, as on /api/*.
func ReadBody(r *http.Request) ([]byte, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "text/plain" {
		return httpapi.ReadBody(r)
	}
	return httpapi.ReadJSONBody(r)
}
