package main

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestHandlerShape(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 1, 19, 12, 0, 0, 0, time.FixedZone("x", 3600)) }
	h := newHandler("anthropic/claude-3.5-sonnet", "https://openrouter.ai/api/v1", now)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/health", nil))
	want := `{"status":"ok","model":"anthropic/claude-3.5-sonnet","baseUrl":"https://openrouter.ai/api/v1","timestamp":"2026-01-19T11:00:00.000Z"}`
	if w.Code != 200 || w.Body.String() != want {
		t.Errorf("got %d %s, want 200 %s", w.Code, w.Body, want)
	}
}
