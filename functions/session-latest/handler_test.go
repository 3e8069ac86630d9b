package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/chat"
)

// finder has one session of status found, and records the status asked for.
type finder struct {
	found chat.Status
	asked chat.Status
}

func (f *finder) LatestSession(_ context.Context, _, _ string, status chat.Status) (chat.Session, error) {
	f.asked = status
	if status != f.found {
		return chat.Session{}, chat.ErrNotFound
	}
	at := time.Date(2026, 1, 27, 0, 5, 0, 123456789, time.UTC)
	return chat.Session{ID: "s1", URL: "https://a.example/", Domain: "a.example", Status: status, MessageCount: 10,
		CreatedAt: at.Add(-5 * time.Minute), UpdatedAt: at, Metadata: map[string]string{"initialQuery": "q"}}, nil
}

func TestLatest(t *testing.T) {
	cases := []struct {
		query       string
		found       chat.Status
		status      int
		code, field string
		asked       chat.Status
	}{
		{"", chat.StatusActive, 200, "", "", chat.StatusActive},
		{"status=completed", chat.StatusCompleted, 200, "", "", chat.StatusCompleted},
		{"status=interrupted", chat.StatusActive, 404, "SESSION_NOT_FOUND", "", chat.StatusInterrupted},
		{"", chat.StatusCompleted, 404, "SESSION_NOT_FOUND", "", chat.StatusActive},
		{"status=archived", chat.StatusActive, 400, "VALIDATION_ERROR", "status", ""},
		{"status=open", chat.StatusActive, 400, "VALIDATION_ERROR", "status", ""},
		{"status=active&status=failed", chat.StatusActive, 400, "VALIDATION_ERROR", "status", ""},
	}
	for _, tc := range cases {
		t.Run(tc.query+"/"+string(tc.found), func(t *testing.T) {
			store := &finder{found: tc.found}
			r := httptest.NewRequest("GET", "/api/session/latest?"+tc.query, nil)
			r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "t"}, "h"))
			w := httptest.NewRecorder()
			newHandler(store).ServeHTTP(w, r)
			var e struct {
				Code    string
				Details map[string]string
			}
			_ = json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code != tc.status || e.Code != tc.code || e.Details["field"] != tc.field || store.asked != tc.asked {
				t.Errorf("got %d %s (asked %q), want %d %s %s (asked %q)", w.Code, w.Body, store.asked, tc.status, tc.code, tc.field, tc.asked)
			}
		})
	}
}

// §14.3.2's shape inside the envelope, with millisecond ISO 8601 times.
func TestLatestShape(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/session/latest", nil)
	r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "t"}, "h"))
	w := httptest.NewRecorder()
	newHandler(&finder{found: chat.StatusActive}).ServeHTTP(w, r)
	want := `{"success":true,"data":{"sessionId":"s1","url":"https://a.example/","domain":"a.example","title":"","status":"active",` +
		`"lifecycleStatus":"active","createdAt":"2026-01-27T00:00:00.123Z","updatedAt":"2026-01-27T00:05:00.123Z","messageCount":10,` +
		`"metadata":{"initialQuery":"q"}}}`
	if w.Body.String() != want {
		t.Errorf("body = %s\nwant   %s", w.Body, want)
	}
}
