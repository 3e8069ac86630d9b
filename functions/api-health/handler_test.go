package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/screenagent/backend/shared/health"
)

type fixedChecker health.Report

func (f fixedChecker) Check(context.Context) health.Report { return health.Report(f) }

func TestHandler(t *testing.T) {
	cases := []struct {
		status     string
		wantStatus int
	}{
		{health.Healthy, 200},
		{health.Degraded, 200},
		{health.Unhealthy, 503},
	}
	for _, tc := range cases {
		t.Run(tc.status, func(t *testing.T) {
			h := newHandler(fixedChecker{Status: tc.status, Timestamp: "2026-01-01T00:00:00Z",
				Services: map[string]health.Service{"tasksTable": {Status: tc.status}}})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/api/health", nil))
			if w.Code != tc.wantStatus {
				t.Errorf("HTTP status = %d, want %d", w.Code, tc.wantStatus)
			}
			var body struct {
				Success bool          `json:"success"`
				Data    health.Report `json:"data"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %s: %v", w.Body, err)
			}
			if !body.Success || body.Data.Status != tc.status || body.Data.Services["tasksTable"].Status != tc.status {
				t.Errorf("body = %s, want success envelope with status %s", w.Body, tc.status)
			}
		})
	}
}
