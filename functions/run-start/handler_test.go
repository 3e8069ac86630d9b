package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/trust"
)

type stubStarter struct{ task, mode, tenant string }

func (s *stubStarter) Start(_ context.Context, tenantID, _ string, task string, mode runs.Mode, _, _ string, _ []trust.NamedSecret, _ []string) (runs.StartResponse, error) {
	s.task, s.mode, s.tenant = task, string(mode), tenantID
	return runs.StartResponse{Success: true, RunID: "550e8400-e29b-41d4-a716-446655440000", State: runs.StateView{Status: runs.StatusCreated, MaxSteps: 150}}, nil
}

func TestHandler(t *testing.T) {
	cases := []struct {
		name, contentType, body string
		identity                bool
		wantStatus              int
		wantBody                string
	}{
		{"documented request", "application/json", `{"task":"Find contact information on this page","mode":"autonomous"}`, true, 200,
			`{"success":true,"runId":"550e8400-e29b-41d4-a716-446655440000","state":{"status":"created","currentStep":0,"maxSteps":150}}`},
		{"a fetch without a content type", "text/plain;charset=UTF-8", `{"task":"t"}`, true, 200, ""},
		{"mode of wrong type", "application/json", `{"task":"t","mode":1}`, true, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: mode must be a string"}`},
		{"not JSON", "application/json", `task=t`, true, 400, `{"error":"VALIDATION_ERROR","message":"Invalid request: body is not valid JSON"}`},
		{"a form", "application/x-www-form-urlencoded", `task=t`, true, 415, `{"error":"UNSUPPORTED_MEDIA_TYPE","message":"The request body must be application/json."}`},
		{"no identity", "application/json", `{"task":"t"}`, false, 401, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := &stubStarter{}
			r := httptest.NewRequest("POST", "/agent/run/start", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.contentType)
			if tc.identity {
				r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{TenantID: "ten-a", UserID: "u-1"}, "h"))
			}
			w := httptest.NewRecorder()
			newHandler(stub).ServeHTTP(w, r)
			if w.Code != tc.wantStatus || (tc.wantBody != "" && w.Body.String() != tc.wantBody) {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus == 200 && (stub.tenant != "ten-a" || stub.task == "") {
				t.Errorf("service got tenant %q task %q, want the identity's tenant and the task", stub.tenant, stub.task)
			}
		})
	}
}
