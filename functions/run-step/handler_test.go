package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/metrics"
	"github.com/screenagent/backend/shared/runs"
)

const runPath = "/agent/run/550e8400-e29b-41d4-a716-446655440000/step"

type stubStepper struct{ got runs.StepRequest }

func (s *stubStepper) Step(_ context.Context, req runs.StepRequest) (runs.StepResponse, error) {
	s.got = req
	return runs.StepResponse{Action: runs.ActionExecuteTool, Tool: &runs.ToolView{Name: "click", Parameters: map[string]any{"id": "agent-1"}},
		State: runs.StateView{Status: runs.StatusRunning, CurrentStep: 1, MaxSteps: 150}}, nil
}

type noMetrics struct{}

func (noMetrics) Emit(map[string]string, ...metrics.Value) error { return nil }

func TestHandler(t *testing.T) {
	cases := []struct {
		name, path, body string
		wantStatus       int
		wantBody         string
	}{
		{"documented request", runPath, `{"snapshot":{"url":"https://example.com","title":"Example Domain","visibleText":"Example Domain This domain is for use in...",
			"elements":[{"id":"agent-1","tag":"a","text":"More information...","href":"https://www.iana.org/domains/example"}],"timestamp":1737292800000},
			"lastActionResult":{"success":true,"message":"Clicked successfully"}}`, 200,
			`{"action":"execute_tool","tool":{"name":"click","parameters":{"id":"agent-1"}},"state":{"status":"running","currentStep":1,"maxSteps":150}}`},
		{"first call with nulls", runPath, `{"snapshot":null,"lastActionResult":null}`, 200, ""},
		{"empty body", runPath, ``, 400, `{"error":"VALIDATION_ERROR","message":"Invalid request: body is required"}`},
		{"no news", runPath, `{}`, 200, ""},
		{"result data is not read", runPath, `{"lastActionResult":{"success":false,"error":"gone","data":{"any":[1,2]}}}`, 200, ""},
		{"invalid element", runPath, `{"snapshot":{"url":"https://a.example/","elements":[{"id":"a","tag":"b","text":"` + strings.Repeat("x", 201) + `"}]}}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: snapshot.elements[0].text must be at most 200 characters, got 201"}`},
		{"snapshot not an object", runPath, `{"snapshot":"page"}`, 400, `{"error":"VALIDATION_ERROR","message":"Invalid request: snapshot must be an object"}`},
		{"result without success", runPath, `{"lastActionResult":{"message":"ok"}}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: lastActionResult.success is required"}`},
		{"not a run id", "/agent/run/42/step", `{}`, 400, `{"error":"VALIDATION_ERROR","message":"Invalid request: runId must be a UUID"}`},
		{"javascript page", runPath, `{"snapshot":{"url":"javascript:alert(1)"}}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: snapshot.url must be an absolute http(s) URL"}`},
		{"too many batch results", runPath, `{"lastActionResults":[` + strings.TrimSuffix(strings.Repeat(`{"success":true},`, 11), ",") + `]}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: lastActionResults must have at most 10 entries"}`},
		{"a skipped call that succeeded", runPath, `{"lastActionResults":[{"success":true},{"success":true,"skipped":true}]}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: lastActionResults[1].skipped a skipped call cannot have succeeded"}`},
		{"batch result without success", runPath, `{"lastActionResults":[{"message":"ok"}]}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: lastActionResults[0].success is required"}`},
		{"malformed secret name", runPath, `{"secretNames":["no spaces allowed"]}`, 400, ""},
		{"file link", runPath, `{"snapshot":{"url":"https://a.example/","elements":[{"id":"a","tag":"a","href":"file:///etc/passwd"}]}}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: snapshot.elements[0].href must not be a javascript:, vbscript:, data: or file: URL"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := &stubStepper{}
			r := httptest.NewRequest("POST", tc.path, strings.NewReader(tc.body))
			r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{TenantID: "ten-a", UserID: "u-1"}, "h"))
			w := httptest.NewRecorder()
			app.Mount(route, newHandler(stub, noMetrics{})).ServeHTTP(w, r)
			if w.Code != tc.wantStatus || (tc.wantBody != "" && w.Body.String() != tc.wantBody) {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus == 200 && (stub.got.TenantID != "ten-a" || stub.got.UserID != "u-1" || stub.got.RunID != "550e8400-e29b-41d4-a716-446655440000") {
				t.Errorf("service got %+v, want the tenant and run id", stub.got)
			}
		})
	}
}

// TestHandlerKeepsTheResult checks what the service gets of a valid step: the result's message,
// its error cut to maxResultText characters, the opt-out of the cache and the Idempotency-Key.
func TestHandlerKeepsTheResult(t *testing.T) {
	stub := &stubStepper{}
	body := `{"lastActionResult":{"success":false,"error":"` + strings.Repeat("e", 3000) + `","message":" m "},"cache":false}`
	r := httptest.NewRequest("POST", runPath, strings.NewReader(body))
	r.Header.Set("Idempotency-Key", "step-1")
	r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{TenantID: "ten-a", UserID: "u-1"}, "h"))
	w := httptest.NewRecorder()
	app.Mount(route, newHandler(stub, noMetrics{})).ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("got %d %s, want 200", w.Code, w.Body)
	}
	res := stub.got.LastActionResult
	if res == nil || res.Success || res.Message != "m" || len([]rune(res.Error)) != 1000 {
		t.Errorf("service got result %+v, want a failure with its message and the error cut to 1000 characters", res)
	}
	if !stub.got.NoCache || stub.got.IdempotencyKey != "step-1" || stub.got.RequestHash == "" {
		t.Errorf("service got %+v, want the cache opted out and the Idempotency-Key with the body's hash", stub.got)
	}
}
