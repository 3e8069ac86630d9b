package drive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// API is a logged-in client of the backend's two agent APIs.
type API struct {
	base  string
	token string
	http  *http.Client
	// Waiter waits out the API's 429 and 503 answers with Retry-After.
	Waiter Waiter
}

// callTimeout bounds one API call whose context has no deadline of its own: a step is an LLM
// call inside a 29-second function budget. A step's context (Task.StepTimeout) bounds the
// calls made in it, so a slow model's long steps are bounded by that instead.
const callTimeout = 60 * time.Second

// Login signs in with email and password at base (e.g. http://127.0.0.1:3000).
func Login(ctx context.Context, base, email, password string) (*API, error) {
	a := &API{base: strings.TrimRight(base, "/"), http: &http.Client{}}
	var out struct {
		Data struct {
			AccessToken string `json:"accessToken"`
		} `json:"data"`
	}
	if err := a.post(ctx, "/api/v1/auth/login", map[string]string{"email": email, "password": password}, &out); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if out.Data.AccessToken == "" {
		return nil, fmt.Errorf("login: no access token in the answer")
	}
	a.token = out.Data.AccessToken
	return a, nil
}

// APIError is a non-2xx answer of the API, with its body.
type APIError struct {
	Status int
	Body   string
}

func (e *APIError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body) }

// post sends in and decodes the answer into out. A refusal with Retry-After (429, 503) changed
// nothing on the server, so the same request is sent again after the wait.
func (a *API) post(ctx context.Context, path string, in, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	for waited := 0; ; waited++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		if a.token != "" {
			req.Header.Set("Authorization", "Bearer "+a.token)
		}
		resp, err := a.http.Do(req)
		if err != nil {
			return err
		}
		d, again := retryAfter(resp, waited)
		if !again {
			return a.read(resp, path, out)
		}
		resp.Body.Close()
		if err := a.Waiter.wait(ctx, "POST "+path, resp.StatusCode, d, waited+1); err != nil {
			return err
		}
	}
}

// read decodes a final answer: out for 2xx, else an *APIError with the body.
func (a *API) read(resp *http.Response, path string, out any) error {
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &APIError{Status: resp.StatusCode, Body: strings.TrimSpace(string(raw))}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode %s answer: %w", path, err)
	}
	if h, ok := out.(headerTaker); ok {
		h.takeHeader(resp.Header)
	}
	return nil
}

// headerTaker is an answer that also reads the response's headers.
type headerTaker interface{ takeHeader(http.Header) }

// interactRequest is POST /api/agent/interact's body.
type interactRequest struct {
	URL              string             `json:"url"`
	Query            string             `json:"query"`
	DOM              string             `json:"dom"`
	TaskID           string             `json:"taskId,omitempty"`
	SessionID        string             `json:"sessionId,omitempty"`
	LastActionStatus string             `json:"lastActionStatus,omitempty"`
	LastActionError  *tasks.ActionError `json:"lastActionError,omitempty"`
	// Mode is careful or autonomous (the server's default when empty).
	Mode string `json:"mode,omitempty"`
	// ConfirmationID approves the action the payment gate held at the last step.
	ConfirmationID string   `json:"confirmationId,omitempty"`
	SecretNames    []string `json:"secretNames,omitempty"`
	// Timezone and Locale are the user's, from the browser.
	Timezone string `json:"timezone,omitempty"`
	Locale   string `json:"locale,omitempty"`
	// Capabilities and LastActionResults are sent by a client that runs batches.
	Capabilities      []string             `json:"capabilities,omitempty"`
	LastActionResults []tasks.ActionResult `json:"lastActionResults,omitempty"`
}

// interactResponse is the part of the NextActionResponse the client acts on.
type interactResponse struct {
	Thought string `json:"thought"`
	Action  string `json:"action"`
	// Actions is the batch, for a client that declared actionBatch.
	Actions      []string `json:"actions"`
	TaskID       string   `json:"taskId"`
	SessionID    string   `json:"sessionId"`
	Status       string   `json:"status"`
	UserQuestion string   `json:"userQuestion"`
	// ConfirmationID comes with a question about an action the payment gate held.
	ConfirmationID string `json:"confirmationId"`
	// UserRequest says what kind of answer the question wants (credentials, a code, ...).
	UserRequest *trust.UserRequest `json:"userRequest"`
	// Result is the task's answer, when the server returns one with finish.
	Result string `json:"result"`
	Usage  *struct {
		PromptTokens     int `json:"promptTokens"`
		CompletionTokens int `json:"completionTokens"`
	} `json:"usage"`
	Metrics struct {
		Cache string `json:"cache"`
	} `json:"metrics"`
}

func (a *API) interact(ctx context.Context, in interactRequest) (interactResponse, error) {
	var out struct {
		Data interactResponse `json:"data"`
	}
	err := a.post(ctx, "/api/agent/interact", in, &out)
	return out.Data, err
}

// runResult is ToolResult.
type runResult struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
	Skipped bool   `json:"skipped,omitempty"`
}

// runTool is a tool call as the client executes it.
type runTool struct {
	Name       string         `json:"name"`
	Parameters map[string]any `json:"parameters"`
}

// runResponse is the answer of /step and /answer.
type runResponse struct {
	// Cached is the X-Action-Cache header's "hit": the run API's body keeps its shape.
	Cached bool     `json:"-"`
	Action string   `json:"action"`
	Tool   *runTool `json:"tool"`
	// Tools is the batch, for a run started with actionBatch.
	Tools    []runTool `json:"tools"`
	Question string    `json:"question"`
	// ConfirmationID comes with a question about an action the security gate held.
	ConfirmationID string `json:"confirmationId"`
	// UserRequest says what kind of answer the question wants (credentials, a code, ...).
	UserRequest *trust.UserRequest `json:"userRequest"`
	Result      string             `json:"result"`
	Error       string             `json:"error"`
	State       struct {
		Status      string `json:"status"`
		CurrentStep int    `json:"currentStep"`
	} `json:"state"`
}

func (a *API) runStart(ctx context.Context, task, mode, zone, locale string, secretNames, capabilities []string) (string, error) {
	var out struct {
		RunID string `json:"runId"`
	}
	in := map[string]any{"task": task, "mode": mode}
	if zone != "" {
		in["timezone"] = zone
	}
	if locale != "" {
		in["locale"] = locale
	}
	if len(secretNames) > 0 {
		in["secretNames"] = secretNames
	}
	if capabilities != nil {
		in["capabilities"] = capabilities
	}
	if err := a.post(ctx, "/agent/run/start", in, &out); err != nil {
		return "", err
	}
	return out.RunID, nil
}

func (a *API) runStep(ctx context.Context, runID string, snap *runs.Snapshot, last *runResult, parts []runResult) (runResponse, error) {
	var out runResponse
	in := map[string]any{"snapshot": snap, "lastActionResult": last}
	if len(parts) > 0 {
		in["lastActionResults"] = parts
	}
	err := a.post(ctx, "/agent/run/"+runID+"/step", in, &out)
	return out, err
}

func (r *runResponse) takeHeader(h http.Header) { r.Cached = h.Get("X-Action-Cache") == "hit" }

// runAnswer answers the pending question; confirmationID approves the action the gate held.
func (a *API) runAnswer(ctx context.Context, runID string, approved bool, answer, confirmationID string, secretNames []string) (runResponse, error) {
	in := map[string]any{"approved": approved}
	if len(secretNames) > 0 {
		in["secretNames"] = secretNames
	}
	if approved && confirmationID != "" {
		in["confirmationId"] = confirmationID
	}
	if answer != "" {
		in["answer"] = answer
	}
	var out runResponse
	err := a.post(ctx, "/agent/run/"+runID+"/answer", in, &out)
	return out, err
}
