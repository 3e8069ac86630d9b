package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

const taskID = "0f8fad5b-d9cb-469f-a165-70867728950e"

// lister has n entries of the user's task taskID and records the filter it was asked with.
type lister struct {
	n      int
	called bool
	got    tasksdb.DebugFilter
}

func (l *lister) ListUserDebug(_ context.Context, _, _ string, f tasksdb.DebugFilter) ([]tasks.DebugEntry, error) {
	l.called, l.got = true, f
	if f.TaskID != "" && f.TaskID != taskID {
		return nil, tasks.ErrNotFound
	}
	var out []tasks.DebugEntry
	for i := range min(l.n, f.Limit) {
		out = append(out, tasks.DebugEntry{ID: fmt.Sprint("d", i), TaskID: taskID, LogType: "step",
			Data: map[string]any{"llmLatencyMs": 12}, CreatedAt: time.Date(2026, 1, 27, 0, 0, 10-i, 0, time.UTC)})
	}
	return out, nil
}

func serve(store *lister, query string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/api/debug/logs?"+query, nil)
	r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: "u", TenantID: "t"}, "h"))
	w := httptest.NewRecorder()
	newHandler(store).ServeHTTP(w, r)
	return w
}

func TestValidation(t *testing.T) {
	cases := []struct{ query, field string }{
		{"taskId=42", "taskId"},
		{"taskId=", "taskId"},
		{"taskId=" + taskID + "&taskId=" + taskID, "taskId"},
		{"logType=Step", "logType"},
		{"logType=", "logType"},
		{"logType=bogus", "logType"},
		{"logType=a%20b", "logType"},
		{"limit=0", "limit"},
		{"limit=201", "limit"},
		{"since=2026-13-01T00:00:00Z", "since"},
		{"since=1737936000", "since"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			store := &lister{}
			w := serve(store, tc.query)
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

// TestUnknownLogType: a log type no entry is written with is refused with the allowed values,
// rather than answering an empty list that looks like "nothing happened".
func TestUnknownLogType(t *testing.T) {
	w := serve(&lister{}, "logType=bogus")
	var e struct{ Message string }
	_ = json.Unmarshal(w.Body.Bytes(), &e)
	if w.Code != 400 || !strings.Contains(e.Message, "must be one of step, llm_error") {
		t.Errorf("got %d %s, want 400 naming the allowed log types", w.Code, w.Body)
	}
}

func TestFilterAndPage(t *testing.T) {
	since := time.Date(2026, 1, 27, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		query   string
		entries int
		want    tasksdb.DebugFilter
		count   int
		hasMore bool
	}{
		{"", 3, tasksdb.DebugFilter{Limit: 51}, 3, false},
		{"limit=2", 3, tasksdb.DebugFilter{Limit: 3}, 2, true},
		{"limit=3", 3, tasksdb.DebugFilter{Limit: 4}, 3, false},
		// The engine's plan changes.
		{"logType=plan", 1, tasksdb.DebugFilter{LogType: "plan", Limit: 51}, 1, false},
		{"taskId=" + strings.ToUpper(taskID) + "&logType=llm_error&since=2026-01-27T00:00:00.000Z&limit=200", 0,
			tasksdb.DebugFilter{TaskID: taskID, LogType: "llm_error", Since: since, Limit: 201}, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			store := &lister{n: tc.entries}
			w := serve(store, tc.query)
			var body struct {
				Data struct {
					Logs []struct {
						DebugID, TaskID, LogType, CreatedAt string
						Data                                map[string]any
					}
					Count, Limit int
					HasMore      bool
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != 200 {
				t.Fatalf("got %d %s, want 200", w.Code, w.Body)
			}
			if !store.got.Since.Equal(tc.want.Since) || store.got.TaskID != tc.want.TaskID || store.got.LogType != tc.want.LogType || store.got.Limit != tc.want.Limit {
				t.Errorf("store asked with %+v, want %+v", store.got, tc.want)
			}
			d := body.Data
			if len(d.Logs) != tc.count || d.Count != tc.count || d.HasMore != tc.hasMore {
				t.Errorf("got %d logs, count %d, hasMore %v; want %d, %v", len(d.Logs), d.Count, d.HasMore, tc.count, tc.hasMore)
			}
			if len(d.Logs) > 0 && (d.Logs[0].DebugID != "d0" || d.Logs[0].CreatedAt != "2026-01-27T00:00:10.000Z" || d.Logs[0].Data["llmLatencyMs"] != 12.0) {
				t.Errorf("first log = %+v, want d0 of 00:00:10.000Z with its data", d.Logs[0])
			}
		})
	}
}

func TestUnknownTaskIs404(t *testing.T) {
	w := serve(&lister{}, "taskId=1f8fad5b-d9cb-469f-a165-70867728950e")
	if want := `{"success":false,"code":"TASK_NOT_FOUND","message":"Task not found."}`; w.Code != 404 || w.Body.String() != want {
		t.Errorf("got %d %s, want 404 %s", w.Code, w.Body, want)
	}
}
