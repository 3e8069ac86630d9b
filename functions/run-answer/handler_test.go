package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/runs"
)

type stubAnswerer struct{ got runs.AnswerRequest }

func (s *stubAnswerer) Answer(_ context.Context, req runs.AnswerRequest) (runs.StepResponse, error) {
	s.got = req
	return runs.StepResponse{Action: runs.ActionExecuteTool, Tool: &runs.ToolView{Name: "observe", Parameters: map[string]any{}},
		State: runs.StateView{Status: runs.StatusRunning, CurrentStep: 6, MaxSteps: 150}}, nil
}

func TestHandler(t *testing.T) {
	cases := []struct {
		name, contentType, body string
		wantStatus              int
		wantBody                string
		want                    runs.AnswerRequest
	}{
		{"documented request", "application/json", `{"approved":true,"answer":"optional text answer"}`, 200,
			`{"action":"execute_tool","tool":{"name":"observe","parameters":{}},"state":{"status":"running","currentStep":6,"maxSteps":150}}`,
			runs.AnswerRequest{Approved: true, Answer: "optional text answer"}},
		{"the example's fetch without headers", "text/plain;charset=UTF-8", `{"approved":false}`, 200, "", runs.AnswerRequest{}},
		{"approved missing", "application/json", `{"answer":"yes"}`, 400, `{"error":"VALIDATION_ERROR","message":"Invalid request: approved is required"}`, runs.AnswerRequest{}},
		{"approved of wrong type", "application/json", `{"approved":"yes"}`, 400, `{"error":"VALIDATION_ERROR","message":"Invalid request: approved must be a boolean"}`, runs.AnswerRequest{}},
		{"answer too long", "application/json", `{"approved":true,"answer":"` + strings.Repeat("a", 2001) + `"}`, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: answer must be at most 2000 characters"}`, runs.AnswerRequest{}},
		{"answer trimmed", "application/json", `{"approved":true,"answer":"  yes  "}`, 200, "", runs.AnswerRequest{Approved: true, Answer: "yes"}},
		{"malformed secret name", "application/json", `{"approved":true,"secretNames":["no spaces allowed"]}`, 400, "", runs.AnswerRequest{}},
		{"a form", "application/x-www-form-urlencoded", `approved=true`, 415, `{"error":"UNSUPPORTED_MEDIA_TYPE","message":"The request body must be application/json."}`, runs.AnswerRequest{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := &stubAnswerer{}
			r := httptest.NewRequest("POST", "/agent/run/550e8400-e29b-41d4-a716-446655440000/answer", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.contentType)
			r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{TenantID: "ten-a", UserID: "u-1"}, "h"))
			w := httptest.NewRecorder()
			app.Mount(route, newHandler(stub)).ServeHTTP(w, r)
			if w.Code != tc.wantStatus || (tc.wantBody != "" && w.Body.String() != tc.wantBody) {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus == 200 && (stub.got.Approved != tc.want.Approved || stub.got.Answer != tc.want.Answer || stub.got.TenantID != "ten-a" || stub.got.UserID != "u-1") {
				t.Errorf("service got %+v, want %+v for user u-1 of tenant ten-a", stub.got, tc.want)
			}
		})
	}
}
