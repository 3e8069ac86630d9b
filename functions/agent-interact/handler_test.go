package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/agent"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/metrics"
)

type fakeEngine struct {
	got  agent.Request
	resp agent.Response
	err  error
}

func (f *fakeEngine) Interact(_ context.Context, req agent.Request) (agent.Response, error) {
	f.got = req
	return f.resp, f.err
}

type noPrefs struct{}

func (noPrefs) GetPreferences(context.Context, string, string) (accounts.Preferences, bool, error) {
	return accounts.DefaultPreferences(), false, nil
}

func serve(t *testing.T, e *fakeEngine, body string, header map[string]string) (*httptest.ResponseRecorder, *bytes.Buffer) {
	t.Helper()
	var emf bytes.Buffer
	h := newHandler(e, noPrefs{}, metrics.New(&emf, "Test"))
	r := httptest.NewRequest("POST", "/api/agent/interact", strings.NewReader(body))
	for k, v := range header {
		r.Header.Set(k, v)
	}
	r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "t"}, "h"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w, &emf
}

const valid = `{"url":"https://a.example/x","query":"buy","dom":"<button id=\"1\">Buy</button>"`

func TestRequestValidation(t *testing.T) {
	cases := []struct {
		name, body, field string
	}{
		{"ok", valid + `}`, ""},
		{"ftp url", `{"url":"ftp://a.example","query":"q","dom":"d"}`, "url"},
		{"blank query", `{"url":"https://a.example","query":"  ","dom":"d"}`, "query"},
		{"uuid in upper case is fine", valid + `,"taskId":"0F8FAD5B-D9CB-469F-A165-70867728950E"}`, ""},
		{"non-uuid session", valid + `,"sessionId":"abc"}`, "sessionId"},
		{"error with success", valid + `,"lastActionStatus":"success","lastActionError":{"message":"x"}}`, "lastActionError"},
		{"negative element", valid + `,"lastActionError":{"elementId":-1}}`, "lastActionError.elementId"},
		{"long error message", valid + `,"lastActionError":{"message":"` + strings.Repeat("m", agent.MaxErrorMessage+1) + `"}}`, "lastActionError.message"},
		{"variables", valid + `,"extractedVariables":{"title":"CEO"}}`, ""},
		{"long variable", valid + `,"extractedVariables":{"title":"` + strings.Repeat("v", agent.MaxVariableValue+1) + `"}}`, "extractedVariables.title"},
		{"empty variable key", valid + `,"extractedVariables":{"":"x"}}`, "extractedVariables"},
		{"variables not strings", valid + `,"extractedVariables":{"n":1}}`, "extractedVariables"},
		{"too many variables", valid + `,"extractedVariables":{` + manyVariables(51) + `}}`, "extractedVariables"},
		{"careful mode", valid + `,"mode":"careful"}`, ""},
		{"unknown mode", valid + `,"mode":"reckless"}`, "mode"},
		{"confirmation without a task", valid + `,"confirmationId":"cf_1"}`, "confirmationId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := serve(t, &fakeEngine{}, tc.body, nil)
			if tc.field == "" {
				if w.Code != 200 {
					t.Errorf("got %d %s, want 200", w.Code, w.Body)
				}
				return
			}
			var e struct {
				Code    string
				Details map[string]string
			}
			_ = json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code != 400 || e.Code != "VALIDATION_ERROR" || e.Details["field"] != tc.field {
				t.Errorf("got %d %s, want 400 VALIDATION_ERROR on %s", w.Code, w.Body, tc.field)
			}
		})
	}
}

func TestRequestReachesTheEngine(t *testing.T) {
	e := &fakeEngine{}
	body := valid + `,"taskId":"0F8FAD5B-D9CB-469F-A165-70867728950E","lastActionError":{"message":"gone","elementId":4}}`
	w, _ := serve(t, e, body, map[string]string{"Idempotency-Key": "k-1"})
	if w.Code != 200 {
		t.Fatalf("got %d %s", w.Code, w.Body)
	}
	g := e.got
	if g.Identity.TenantID != "t" || g.TaskID != "0f8fad5b-d9cb-469f-a165-70867728950e" || g.Report == nil || g.Report.Status != "failure" ||
		g.Report.Error.Message != "gone" || g.IdempotencyKey != "k-1" || len(g.RequestHash) != 64 {
		t.Errorf("engine got %+v, want the token's tenant, the lower-cased task, a failure report and the key with a body hash", g)
	}
	w, _ = serve(t, e, body, map[string]string{"Idempotency-Key": "bad\x01key"})
	if w.Code != 400 {
		t.Errorf("control character in Idempotency-Key: %d, want 400", w.Code)
	}
}

func TestEngineErrorsMapToTheContract(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
	}{
		{agent.ErrTaskNotFound, 404, "TASK_NOT_FOUND"},
		{agent.ErrTaskCompleted, 409, "TASK_COMPLETED"},
		{agent.ErrMaxSteps, 400, "MAX_STEPS_EXCEEDED"},
		{agent.ErrSessionNotFound, 404, "SESSION_NOT_FOUND"},
		{agent.ErrSessionMismatch, 400, "VALIDATION_ERROR"},
		{agent.ErrConflict, 409, "RESOURCE_CONFLICT"},
		{agent.ErrIdempotencyMismatch, 409, "RESOURCE_CONFLICT"},
		{fmt.Errorf("%w: upstream 503", agent.ErrLLM), 500, "LLM_ERROR"},
		{errors.New("boom"), 500, "INTERNAL_ERROR"},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			w, _ := serve(t, &fakeEngine{err: tc.err}, valid+`}`, nil)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), `"code":"`+tc.code+`"`) || strings.Contains(w.Body.String(), "upstream") {
				t.Errorf("got %d %s, want %d %s without internals", w.Code, w.Body, tc.status, tc.code)
			}
		})
	}
}

// Without a model, retrying cannot help: the answer says so and names what to set.
func TestUnconfiguredLLMNamesTheSetting(t *testing.T) {
	nc := &llm.NotConfiguredError{Provider: "openai", Missing: []string{"OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN"}}
	w, _ := serve(t, &fakeEngine{err: fmt.Errorf("%w: %w", agent.ErrLLM, fmt.Errorf("%w: %w", llm.ErrUnavailable, nc))}, valid+`}`, nil)
	var body struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if w.Code != 500 || body.Code != "LLM_ERROR" || !strings.Contains(body.Message, "No language model is configured: set OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN") ||
		strings.Contains(body.Message, "retry") || body.Details["reason"] != "not_configured" {
		t.Errorf("got %d %+v, want 500 LLM_ERROR saying no model is configured, naming OPENAI_API_KEY, reason not_configured", w.Code, body)
	}
}

func TestMetricsAreEmitted(t *testing.T) {
	e := &fakeEngine{resp: agent.Response{Action: "click(1)", Metrics: agent.Metrics{PromptTokens: 900, LLMLatencyMs: 700}}}
	_, emf := serve(t, e, valid+`}`, nil)
	if !strings.Contains(emf.String(), `"PromptTokens":900`) || !strings.Contains(emf.String(), `"CloudWatchMetrics"`) {
		t.Errorf("EMF line = %q, want the step's figures", emf)
	}
}

func manyVariables(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"k%d":"v"`, i)
	}
	return strings.Join(parts, ",")
}
