package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/chat"
)

const sessionID = "0f8fad5b-d9cb-469f-a165-70867728950e"

var at = time.Date(2026, 1, 27, 0, 0, 1, 500_000_000, time.UTC)

// reader holds one session of user "u" with three messages and records what it was asked.
type reader struct {
	archived bool
	owner    string
	called   bool
	limit    int
	since    time.Time
}

func (r *reader) ListMessages(_ context.Context, _, id string, limit int, since time.Time) (chat.MessagePage, error) {
	r.called, r.limit, r.since = true, limit, since
	if id != sessionID {
		return chat.MessagePage{}, chat.ErrNotFound
	}
	owner := r.owner
	if owner == "" {
		owner = "u"
	}
	snap := strings.Repeat("a", 64)
	msgs := []chat.Message{
		{ID: "m1", Role: chat.RoleUser, Content: "Log in", Status: chat.MessageSuccess, SequenceNumber: 1, Timestamp: at},
		{ID: "m2", Role: chat.RoleAssistant, Content: "Typing the email.", ActionString: `setValue(42, "a@b.example")`,
			Status: chat.MessagePending, SequenceNumber: 2, Timestamp: at, SnapshotID: snap, DOMSummary: "Login page", DOMLength: 5000,
			Usage: &chat.Usage{PromptTokens: 100, CompletionTokens: 10}, Latency: 1500 * time.Millisecond, Model: "m"},
		{ID: "m3", Role: chat.RoleSystem, Content: "The action failed: no element.", ActionString: `setValue(42, "a@b.example")`,
			Status: chat.MessageFailure, Error: &chat.ActionError{Message: "no element", Code: "NOT_FOUND"}, SequenceNumber: 3, Timestamp: at.Add(time.Second)},
	}
	if limit > 0 && limit < len(msgs) {
		msgs = msgs[:limit]
	}
	return chat.MessagePage{Session: chat.Session{ID: sessionID, UserID: owner, Archived: r.archived, MessageCount: 3}, Messages: msgs, Total: 3}, nil
}

func serve(store *reader, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", path, nil)
	r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "t"}, "h"))
	w := httptest.NewRecorder()
	app.Mount(route, newHandler(store)).ServeHTTP(w, r)
	return w
}

func TestValidation(t *testing.T) {
	cases := []struct{ path, field string }{
		{"/api/session/abc/messages", "sessionId"},
		{"/api/session/" + sessionID + "x/messages", "sessionId"},
		{"/api/session/%7B" + sessionID + "%7D/messages", "sessionId"},
		{"/api/session/" + sessionID + "/messages?limit=0", "limit"},
		{"/api/session/" + sessionID + "/messages?limit=201", "limit"},
		{"/api/session/" + sessionID + "/messages?limit=ten", "limit"},
		{"/api/session/" + sessionID + "/messages?since=yesterday", "since"},
		{"/api/session/" + sessionID + "/messages?since=2026-01-27", "since"},
		{"/api/session/" + sessionID + "/messages?since=2026-01-27T00:00:00", "since"},
		{"/api/session/" + sessionID + "/messages?since=", "since"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			store := &reader{}
			w := serve(store, tc.path)
			var e struct {
				Code    string
				Details map[string]string
			}
			_ = json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code != 400 || e.Code != "VALIDATION_ERROR" || e.Details["field"] != tc.field || store.called {
				t.Errorf("got %d %s, want 400 VALIDATION_ERROR on %s before the store", w.Code, w.Body, tc.field)
			}
		})
	}
}

func TestHiddenSessionsAre404(t *testing.T) {
	cases := []struct {
		name  string
		store *reader
		path  string
	}{
		{"unknown", &reader{}, "/api/session/" + strings.Replace(sessionID, "0f8", "1f8", 1) + "/messages"},
		{"another user's", &reader{owner: "v"}, "/api/session/" + sessionID + "/messages"},
		{"archived", &reader{archived: true}, "/api/session/" + sessionID + "/messages"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(tc.store, tc.path)
			if want := `{"success":false,"code":"SESSION_NOT_FOUND","message":"Session not found."}`; w.Code != 404 || w.Body.String() != want {
				t.Errorf("got %d %s, want 404 %s", w.Code, w.Body, want)
			}
		})
	}
}

// The messages are §4.8.1's shape: the page's summary but no snapshot ID, the LLM's figures
// under metadata, and an action payload parsed from the action string.
func TestMessagesShape(t *testing.T) {
	store := &reader{}
	w := serve(store, "/api/session/"+strings.ToUpper(sessionID)+"/messages?limit=2")
	want := `{"success":true,"data":{"sessionId":"` + sessionID + `","messages":[` +
		`{"messageId":"m1","role":"user","content":"Log in","status":"success","sequenceNumber":1,"timestamp":"2026-01-27T00:00:01.500Z"},` +
		`{"messageId":"m2","role":"assistant","content":"Typing the email.","actionPayload":{"elementId":42,"text":"a@b.example","type":"setValue"},` +
		`"actionString":"setValue(42, \"a@b.example\")","status":"pending","sequenceNumber":2,"timestamp":"2026-01-27T00:00:01.500Z",` +
		`"domSummary":"Login page","metadata":{"tokens_used":{"promptTokens":100,"completionTokens":10},"latency":1500,"llm_model":"m"}}],` +
		`"total":3,"hasMore":true}}`
	if w.Code != 200 || w.Body.String() != want {
		t.Errorf("got %d %s\nwant    %s", w.Code, w.Body, want)
	}
	if store.limit != 3 {
		t.Errorf("store asked for %d messages, want limit+1 = 3", store.limit)
	}
	if w := serve(&reader{}, "/api/session/"+sessionID+"/messages"); !strings.Contains(w.Body.String(), `"error":{"message":"no element","code":"NOT_FOUND"}`) ||
		!strings.Contains(w.Body.String(), `"hasMore":false`) {
		t.Errorf("all messages = %s, want the failure's error and hasMore false", w.Body)
	}
}

// since is compared at the millisecond precision of the timestamps shown: passing the last
// timestamp seen never returns those messages again.
func TestSinceAtMillisecondPrecision(t *testing.T) {
	cases := []struct{ since, want string }{
		{"2026-01-27T00:00:01.500Z", "2026-01-27T00:00:01.500999999Z"},
		{"2026-01-27T00:00:01Z", "2026-01-27T00:00:01.000999999Z"},
		{"2026-01-27T00:00:01.5004Z", "2026-01-27T00:00:01.500999999Z"},
		{"2026-01-27T02:00:01.500%2B02:00", "2026-01-27T00:00:01.500999999Z"},
		{"2026-01-27T02:00:01.500+02:00", "2026-01-27T00:00:01.500999999Z"},
	}
	for _, tc := range cases {
		t.Run(tc.since, func(t *testing.T) {
			store := &reader{}
			if w := serve(store, "/api/session/"+sessionID+"/messages?since="+tc.since); w.Code != 200 {
				t.Fatalf("got %d %s, want 200", w.Code, w.Body)
			}
			if got := store.since.Format(time.RFC3339Nano); got != tc.want {
				t.Errorf("store asked for messages after %s, want after %s", got, tc.want)
			}
		})
	}
}
