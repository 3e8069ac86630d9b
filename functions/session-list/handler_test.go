package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/chat"
)

// recorder records what the handler asked of the store.
type recorder struct {
	called        bool
	filter        chat.ListFilter
	limit, offset int
}

func (r *recorder) ListSessions(_ context.Context, _, _ string, f chat.ListFilter, limit, offset int) (chat.SessionPage, error) {
	r.called, r.filter, r.limit, r.offset = true, f, limit, offset
	return chat.SessionPage{}, nil
}

func TestQuery(t *testing.T) {
	active := chat.ListFilter{Status: chat.StatusActive}
	cases := []struct {
		query         string
		field         string
		filter        chat.ListFilter
		limit, offset int
	}{
		{"", "", active, 20, 0},
		{"includeArchived=false", "", active, 20, 0},
		{"includeArchived=true", "", chat.ListFilter{Archived: chat.IncludeArchived}, 20, 0},
		{"status=completed", "", chat.ListFilter{Status: chat.StatusCompleted}, 20, 0},
		{"status=failed&includeArchived=true", "", chat.ListFilter{Status: chat.StatusFailed, Archived: chat.IncludeArchived}, 20, 0},
		{"status=archived", "", chat.ListFilter{Archived: chat.OnlyArchived}, 20, 0},
		{"status=archived&includeArchived=false", "", chat.ListFilter{Archived: chat.OnlyArchived}, 20, 0},
		{"limit=1&offset=0", "", active, 1, 0},
		{"limit=100&offset=10000&other=ignored", "", active, 100, 10000},
		{"status=done", "status", chat.ListFilter{}, 0, 0},
		{"status=Active", "status", chat.ListFilter{}, 0, 0},
		{"status=", "status", chat.ListFilter{}, 0, 0},
		{"includeArchived=yes", "includeArchived", chat.ListFilter{}, 0, 0},
		{"includeArchived=1", "includeArchived", chat.ListFilter{}, 0, 0},
		{"limit=0", "limit", chat.ListFilter{}, 0, 0},
		{"limit=101", "limit", chat.ListFilter{}, 0, 0},
		{"limit=-1", "limit", chat.ListFilter{}, 0, 0},
		{"limit=%2B5", "limit", chat.ListFilter{}, 0, 0},
		{"limit=5.0", "limit", chat.ListFilter{}, 0, 0},
		{"limit=99999999999999999999", "limit", chat.ListFilter{}, 0, 0},
		{"limit=", "limit", chat.ListFilter{}, 0, 0},
		{"limit=5&limit=6", "limit", chat.ListFilter{}, 0, 0},
		{"offset=-1", "offset", chat.ListFilter{}, 0, 0},
		{"offset=10001", "offset", chat.ListFilter{}, 0, 0},
		{"offset=%zz", "query", chat.ListFilter{}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			rec := &recorder{}
			r := httptest.NewRequest("GET", "/api/session?"+tc.query, nil)
			r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "t"}, "h"))
			w := httptest.NewRecorder()
			newHandler(rec).ServeHTTP(w, r)
			if tc.field != "" {
				var e struct {
					Code    string
					Details map[string]string
				}
				_ = json.Unmarshal(w.Body.Bytes(), &e)
				if w.Code != 400 || e.Code != "VALIDATION_ERROR" || e.Details["field"] != tc.field || rec.called {
					t.Errorf("got %d %s (store called: %v), want 400 VALIDATION_ERROR on %s before the store", w.Code, w.Body, rec.called, tc.field)
				}
				return
			}
			if w.Code != 200 || rec.filter != tc.filter || rec.limit != tc.limit || rec.offset != tc.offset {
				t.Errorf("got %d, filter %+v limit %d offset %d; want 200, %+v %d %d", w.Code, rec.filter, rec.limit, rec.offset, tc.filter, tc.limit, tc.offset)
			}
			if want := `{"success":true,"data":{"sessions":[],"pagination":{"total":0,"limit":` + strconv.Itoa(tc.limit) + `,"offset":` + strconv.Itoa(tc.offset) + `,"hasMore":false}}}`; w.Body.String() != want {
				t.Errorf("body = %s, want %s", w.Body, want)
			}
		})
	}
}

func TestWithoutIdentityIs401(t *testing.T) {
	w := httptest.NewRecorder()
	newHandler(&recorder{}).ServeHTTP(w, httptest.NewRequest("GET", "/api/session", nil))
	if w.Code != 401 {
		t.Errorf("got %d, want 401", w.Code)
	}
}
