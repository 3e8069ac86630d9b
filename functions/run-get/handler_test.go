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

type stubGetter struct{ tenant, user, run string }

func (s *stubGetter) Get(_ context.Context, tenantID, userID, runID string) (runs.GetResponse, error) {
	s.tenant, s.user, s.run = tenantID, userID, runID
	if runID != "550e8400-e29b-41d4-a716-446655440000" {
		return runs.GetResponse{}, runs.ErrNotFound
	}
	return runs.GetResponse{Success: true, State: runs.RunView{RunID: runID, Task: "t", Mode: runs.ModeAutonomous, Status: runs.StatusCreated,
		MaxSteps: 150, History: []runs.HistoryView{}, Reflections: []runs.ReflectionView{}, CreatedAt: 1737292800000, UpdatedAt: 1737292800000}}, nil
}

func TestHandler(t *testing.T) {
	cases := []struct {
		name, path string
		wantStatus int
		wantBody   string
	}{
		{"a run", "/agent/run/550e8400-e29b-41d4-a716-446655440000", 200,
			`{"success":true,"state":{"runId":"550e8400-e29b-41d4-a716-446655440000","task":"t","mode":"autonomous","status":"created","currentStep":0,"maxSteps":150,"history":[],"reflections":[],"currentSnapshot":null,"createdAt":1737292800000,"updatedAt":1737292800000}}`},
		{"unknown run", "/agent/run/650e8400-e29b-41d4-a716-446655440000", 404, `{"error":"NOT_FOUND","message":"Run not found or expired."}`},
		{"upper-case id", "/agent/run/650E8400-E29B-41D4-A716-446655440000", 404, `{"error":"NOT_FOUND","message":"Run not found or expired."}`},
		{"malformed id", "/agent/run/not-a-run", 400, `{"error":"VALIDATION_ERROR","message":"Invalid request: runId must be a UUID"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := &stubGetter{}
			r := httptest.NewRequest("GET", tc.path, nil)
			r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{TenantID: "ten-a", UserID: "u-1"}, "h"))
			w := httptest.NewRecorder()
			app.Mount(route, newHandler(stub)).ServeHTTP(w, r)
			if w.Code != tc.wantStatus || w.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus != 400 && (stub.tenant != "ten-a" || stub.user != "u-1" || stub.run != strings.ToLower(stub.run)) {
				t.Errorf("service got tenant %q user %q run %q, want the identity's and the run id in lower case", stub.tenant, stub.user, stub.run)
			}
		})
	}
}
