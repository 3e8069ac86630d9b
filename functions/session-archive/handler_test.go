package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/chat"
)

// archiver answers with err, or archives whatever it is asked.
type archiver struct {
	err error
	got string
}

func (a *archiver) Archive(_ context.Context, _, _, sessionID string) (chat.Session, error) {
	a.got = sessionID
	if a.err != nil {
		return chat.Session{}, a.err
	}
	return chat.Session{ID: sessionID, Status: chat.StatusActive, Archived: true}, nil
}

const sessionID = "0f8fad5b-d9cb-469f-a165-70867728950e"

func TestArchive(t *testing.T) {
	cases := []struct {
		name, body  string
		storeErr    error
		status      int
		code, field string
	}{
		{"archived", `{"sessionId":"` + sessionID + `"}`, nil, 200, "", ""},
		{"upper-case id", `{"sessionId":"` + strings.ToUpper(sessionID) + `"}`, nil, 200, "", ""},
		{"another user's", `{"sessionId":"` + sessionID + `"}`, fmt.Errorf("archive: %w", chat.ErrForbidden), 403, "FORBIDDEN", ""},
		{"unknown", `{"sessionId":"` + sessionID + `"}`, fmt.Errorf("archive: %w", chat.ErrNotFound), 404, "SESSION_NOT_FOUND", ""},
		{"racing", `{"sessionId":"` + sessionID + `"}`, chat.ErrConcurrentAppend, 409, "RESOURCE_CONFLICT", ""},
		{"no id", `{}`, nil, 400, "VALIDATION_ERROR", "sessionId"},
		{"empty id", `{"sessionId":""}`, nil, 400, "VALIDATION_ERROR", "sessionId"},
		{"not a uuid", `{"sessionId":"abc"}`, nil, 400, "VALIDATION_ERROR", "sessionId"},
		{"uuid without dashes", `{"sessionId":"0f8fad5bd9cb469fa16570867728950e"}`, nil, 400, "VALIDATION_ERROR", "sessionId"},
		{"number", `{"sessionId":7}`, nil, 400, "VALIDATION_ERROR", "sessionId"},
		{"no body", ``, nil, 400, "VALIDATION_ERROR", "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := &archiver{err: tc.storeErr}
			r := httptest.NewRequest("POST", "/api/session", strings.NewReader(tc.body))
			r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "t"}, "h"))
			w := httptest.NewRecorder()
			newHandler(store).ServeHTTP(w, r)
			var e struct {
				Code    string
				Details map[string]string
			}
			_ = json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code != tc.status || e.Code != tc.code || e.Details["field"] != tc.field {
				t.Errorf("got %d %s, want %d %s %s", w.Code, w.Body, tc.status, tc.code, tc.field)
			}
			if tc.status == 200 {
				want := `{"success":true,"data":{"sessionId":"` + sessionID + `","status":"archived","message":"Session archived successfully"}}`
				if w.Body.String() != want || store.got != sessionID {
					t.Errorf("body = %s (archived %q), want %s", w.Body, store.got, want)
				}
			}
		})
	}
}
