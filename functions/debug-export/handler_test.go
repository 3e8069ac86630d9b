package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/tasks"
)

const (
	taskID    = "0f8fad5b-d9cb-469f-a165-70867728950e"
	sessionID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
)

var t0 = time.Date(2026, 1, 27, 0, 0, 0, 0, time.UTC)

// records holds task taskID of user "u" with two steps, three debug entries (newest first, as
// the store lists them) and, unless bare, the verification of both steps and a correction.
type records struct{ bare bool }

func (records) GetTask(_ context.Context, _, id string) (tasks.Task, error) {
	if id != taskID {
		return tasks.Task{}, tasks.ErrNotFound
	}
	return tasks.Task{ID: taskID, UserID: "u", SessionID: sessionID, URL: "https://shop.example/", Query: "find socks",
		Status: tasks.StatusCompleted, StepCount: 2, CreatedAt: t0, UpdatedAt: t0.Add(9 * time.Second)}, nil
}

func (records) Steps(context.Context, string, string) ([]tasks.Step, error) {
	return []tasks.Step{
		{Index: 0, Thought: "Type.", Action: `setValue(1, "socks")`, URL: "https://shop.example/", Usage: tasks.Usage{PromptTokens: 100, CompletionTokens: 10},
			LLMAttempts: 1, LLMLatency: 800 * time.Millisecond, Duration: time.Second, CreatedAt: t0},
		{Index: 1, Thought: "Done.", Action: "finish()", URL: "https://shop.example/", PreviousReport: &tasks.Report{Status: "failure", Error: &tasks.ActionError{Message: "stale"}},
			Usage: tasks.Usage{PromptTokens: 200, CompletionTokens: 20}, LLMAttempts: 2, LLMLatency: 1200 * time.Millisecond, Duration: 2 * time.Second, CreatedAt: t0.Add(9 * time.Second)},
	}, nil
}

func (r records) Verifications(context.Context, string, string) ([]tasks.Verification, error) {
	if r.bare {
		return nil, nil
	}
	return []tasks.Verification{
		{TaskID: taskID, StepIndex: 0, Action: `setValue(1, "socks")`, Verdict: tasks.Unverified, Method: "deterministic",
			Expected: &tasks.Expectation{Description: "the field holds socks", TextAppears: []string{"socks"}}, Evidence: []string{"the page did not change"}, CreatedAt: t0.Add(5 * time.Second)},
		{TaskID: taskID, StepIndex: 1, Action: "finish()", Verdict: tasks.Verified, Method: "model", Evidence: []string{"the model's evaluation: done"}, CreatedAt: t0.Add(9 * time.Second)},
	}, nil
}

func (r records) Corrections(context.Context, string, string) ([]tasks.Correction, error) {
	if r.bare {
		return nil, nil
	}
	return []tasks.Correction{{TaskID: taskID, StepIndex: 0, Strategy: tasks.AlternativeSelector, Reason: "the page did not change",
		FailedAction: `setValue(1, "socks")`, Action: "finish()", CreatedAt: t0.Add(5 * time.Second)}}, nil
}

func (records) ListDebug(context.Context, string, tasks.DebugFilter) ([]tasks.DebugEntry, error) {
	return []tasks.DebugEntry{
		{ID: "d2", TaskID: taskID, LogType: "step", Data: map[string]any{"n": 2}, CreatedAt: t0.Add(9 * time.Second)},
		{ID: "d1", TaskID: taskID, LogType: "llm_error", Data: map[string]any{"error": "timeout"}, CreatedAt: t0.Add(5 * time.Second)},
		{ID: "d0", TaskID: taskID, LogType: "step", CreatedAt: t0},
	}, nil
}

// session holds the task's messages and a later task's, two of them on the same page.
type session struct{ gone bool }

func (s session) ListMessages(_ context.Context, _, id string, _ int, _ time.Time) (chat.MessagePage, error) {
	if s.gone || id != sessionID {
		return chat.MessagePage{}, chat.ErrNotFound
	}
	snap := strings.Repeat("b", 64)
	return chat.MessagePage{
		Session: chat.Session{ID: sessionID, UserID: "u", TaskID: "later", Status: chat.StatusActive, Archived: true, MessageCount: 4},
		Messages: []chat.Message{
			{ID: "m1", TaskID: taskID, Role: chat.RoleUser, Content: "find socks", SequenceNumber: 1, Timestamp: t0},
			{ID: "m2", TaskID: taskID, Role: chat.RoleAssistant, ActionString: `setValue(1, "socks")`, SequenceNumber: 2, Timestamp: t0,
				SnapshotID: snap, DOMSummary: "Shop", DOMLength: 4000},
			{ID: "m3", TaskID: taskID, Role: chat.RoleAssistant, ActionString: "finish()", SequenceNumber: 3, Timestamp: t0.Add(9 * time.Second),
				SnapshotID: snap, DOMSummary: "Shop", DOMLength: 4000},
			{ID: "m4", TaskID: "later", Role: chat.RoleUser, Content: "next task", SequenceNumber: 4, Timestamp: t0.Add(time.Minute)},
		},
		Total: 4,
	}, nil
}

func serve(msgs session, path, user string) *httptest.ResponseRecorder {
	return serveRecords(records{}, msgs, path, user)
}

func serveRecords(store records, msgs session, path, user string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", path, nil)
	r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{UserID: user, TenantID: "t"}, "h"))
	w := httptest.NewRecorder()
	app.Mount(route, newHandler(store, msgs, func() time.Time { return t0.Add(time.Hour) })).ServeHTTP(w, r)
	return w
}

func TestExport(t *testing.T) {
	w := serve(session{}, "/api/debug/session/"+taskID+"/export", "u")
	if w.Code != 200 {
		t.Fatalf("got %d %s, want 200", w.Code, w.Body)
	}
	if got, want := w.Header().Get("Content-Disposition"), `attachment; filename="task-`+taskID+`.json"`; got != want {
		t.Errorf("Content-Disposition = %q, want %q", got, want)
	}
	var body struct {
		Success bool
		Data    struct {
			ExportVersion int
			ExportedAt    string
			Task          struct{ TaskID, SessionID, Status string }
			Steps         []struct {
				StepIndex      int
				Action         string
				PreviousReport *tasks.Report
			}
			Session  *struct{ SessionID, Status, LifecycleStatus string }
			Messages []struct {
				MessageID, TaskID, SnapshotID string
				DOMLength                     int
			}
			Snapshots []struct {
				SnapshotID      string
				SequenceNumbers []int
			}
			DebugEntries          []struct{ DebugID string }
			DebugEntriesTruncated bool
			Metrics               map[string]int
			VerificationRecords   []tasks.Verification
			CorrectionRecords     []tasks.Correction
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	d := body.Data
	if !body.Success || d.ExportVersion != 1 || d.ExportedAt != "2026-01-27T01:00:00.000Z" || d.Task.TaskID != taskID || d.Task.Status != "completed" {
		t.Errorf("header = %+v %+v, want version 1, exportedAt, the completed task", d.ExportVersion, d.Task)
	}
	if len(d.Steps) != 2 || d.Steps[1].Action != "finish()" || !d.Steps[1].PreviousReport.Failed() {
		t.Errorf("steps = %+v, want both steps with the failed report", d.Steps)
	}
	if d.Session == nil || d.Session.Status != "archived" || d.Session.LifecycleStatus != "active" {
		t.Errorf("session = %+v, want the archived session", d.Session)
	}
	var ids []string
	for _, m := range d.Messages {
		ids = append(ids, m.MessageID)
	}
	if strings.Join(ids, ",") != "m1,m2,m3" || d.Messages[1].SnapshotID == "" || d.Messages[1].DOMLength != 4000 {
		t.Errorf("messages = %+v, want the task's m1..m3 with snapshot references", d.Messages)
	}
	if len(d.Snapshots) != 1 || len(d.Snapshots[0].SequenceNumbers) != 2 {
		t.Errorf("snapshots = %+v, want one page referenced by messages 2 and 3", d.Snapshots)
	}
	if len(d.DebugEntries) != 3 || d.DebugEntries[0].DebugID != "d0" || d.DebugEntries[2].DebugID != "d2" || d.DebugEntriesTruncated {
		t.Errorf("debug entries = %+v, want d0, d1, d2 in time order", d.DebugEntries)
	}
	wantMetrics := map[string]int{
		"stepCount": 2, "promptTokens": 300, "completionTokens": 30, "totalTokens": 330, "llmAttempts": 3,
		"llmLatencyMs": 2000, "averageLlmLatencyMs": 1000, "stepDurationMs": 3000, "averageStepDurationMs": 1500,
		"taskDurationMs": 9000, "failedActions": 1, "llmErrors": 1, "verificationFailures": 1, "corrections": 1, "messageCount": 3,
	}
	for k, v := range wantMetrics {
		if d.Metrics[k] != v {
			t.Errorf("metrics.%s = %d, want %d", k, d.Metrics[k], v)
		}
	}
	wantV, _ := records{}.Verifications(t.Context(), "t", taskID)
	if !reflect.DeepEqual(d.VerificationRecords, wantV) {
		t.Errorf("verification records:\n got %+v\nwant %+v", d.VerificationRecords, wantV)
	}
	wantC, _ := records{}.Corrections(t.Context(), "t", taskID)
	if !reflect.DeepEqual(d.CorrectionRecords, wantC) {
		t.Errorf("correction records:\n got %+v\nwant %+v", d.CorrectionRecords, wantC)
	}
	for _, field := range []string{`"verdict":"failed"`, `"expectedOutcome":{"description":"the field holds socks"`, `"strategy":"ALTERNATIVE_SELECTOR"`, `"failedAction":`} {
		if !strings.Contains(w.Body.String(), field) {
			t.Errorf("the export lacks %s of the records: %s", field, w.Body)
		}
	}
	if strings.Contains(w.Body.String(), `"dom"`) {
		t.Errorf("the export contains a page: %s", w.Body)
	}
}

func TestExportWithoutSession(t *testing.T) {
	w := serve(session{gone: true}, "/api/debug/session/"+taskID+"/export", "u")
	if !strings.Contains(w.Body.String(), `"session":null,"messages":[],"snapshots":[]`) {
		t.Errorf("export of a task whose session expired = %s, want a null session and no messages", w.Body)
	}
}

func TestExportWithoutRecords(t *testing.T) {
	w := serveRecords(records{bare: true}, session{}, "/api/debug/session/"+taskID+"/export", "u")
	if !strings.Contains(w.Body.String(), `"verificationRecords":[],"correctionRecords":[]`) ||
		!strings.Contains(w.Body.String(), `"verificationFailures":0,"corrections":0`) {
		t.Errorf("export of a task without records = %s, want empty lists and zero totals", w.Body)
	}
}

func TestExportErrors(t *testing.T) {
	cases := []struct {
		name, path, user string
		status           int
		code, field      string
	}{
		{"another user's task", "/api/debug/session/" + taskID + "/export", "v", 404, "TASK_NOT_FOUND", ""},
		{"unknown task", "/api/debug/session/" + sessionID + "/export", "u", 404, "TASK_NOT_FOUND", ""},
		{"malformed id", "/api/debug/session/task-1/export", "u", 400, "VALIDATION_ERROR", "taskId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(session{}, tc.path, tc.user)
			var e struct {
				Code    string
				Details map[string]string
			}
			_ = json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code != tc.status || e.Code != tc.code || e.Details["field"] != tc.field || w.Header().Get("Content-Disposition") != "" {
				t.Errorf("got %d %s, want %d %s %s and no attachment", w.Code, w.Body, tc.status, tc.code, tc.field)
			}
		})
	}
}
