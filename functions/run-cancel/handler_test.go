package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/runs"
)

type stubCanceller struct{ err error }

func (s stubCanceller) Cancel(_ context.Context, tenantID, userID, _ string) error {
	if tenantID != "ten-a" || userID != "u-1" {
		return runs.ErrNotFound
	}
	return s.err
}

func TestHandler(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
	}{
		{"cancelled", nil, 200, `{"success":true}`},
		{"unknown run", runs.ErrNotFound, 404, `{"error":"NOT_FOUND","message":"Run not found or expired."}`},
		{"finished run", runs.ErrFinished, 409, `{"error":"RESOURCE_CONFLICT","message":"The run has already finished; start a new run."}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/agent/run/550e8400-e29b-41d4-a716-446655440000/cancel", nil)
			r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{TenantID: "ten-a", UserID: "u-1"}, "h"))
			w := httptest.NewRecorder()
			app.Mount(route, newHandler(stubCanceller{tc.err})).ServeHTTP(w, r)
			if w.Code != tc.wantStatus || w.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}
