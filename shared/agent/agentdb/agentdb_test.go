package agentdb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/agent/commit"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// TestCommitStep: a first step creates the task, its session, messages and records together; a
// second commit from the same stale read is tasks.ErrConflict and writes nothing.
func TestCommitStep(t *testing.T) {
	ctx := context.Background()
	db := dynamotest.New(t)
	w := &Writer{Tasks: tasksdb.New(db.Client, db.Tables["TasksTable"], tasks.DefaultRetention), Chat: chatdb.New(db.Client, db.Tables["SessionsTable"], db.Tables["MessagesTable"], chat.DefaultRetention()), DB: db.Client}
	now := time.Now().UTC().Truncate(time.Millisecond)
	task := tasks.Task{ID: "t1", TenantID: "ten-a", UserID: "u1", URL: "https://shop.example/", Query: "find socks", Status: tasks.StatusActive}
	sess, err := chat.NewSession("ten-a", "u1", task.ID, task.URL, task.Query, now)
	if err != nil {
		t.Fatal(err)
	}
	task.SessionID = sess.ID
	step := func(idem string) commit.Step {
		return commit.Step{
			Task: task, IsNew: true, Step: tasks.Step{Index: 0, Thought: "Look.", Action: "click(2)", CreatedAt: now}, Status: tasks.StatusActive,
			Session: sess, NewSession: true, SessionStatus: chat.StatusActive,
			Messages:    []chat.Message{{Role: chat.RoleUser, Content: task.Query, Status: chat.MessageSuccess}, {Role: chat.RoleAssistant, Content: "Look.", ActionString: "click(2)", Status: chat.MessagePending}},
			Debug:       []tasks.DebugEntry{{ID: "d-" + idem, TaskID: task.ID, LogType: tasks.LogStep, CreatedAt: now}},
			Idempotency: &tasks.IdempotencyRecord{Key: idem, RequestHash: "h", StatusCode: 200, Body: []byte(`{}`)},
			Now:         now,
		}
	}
	if err := w.CommitStep(ctx, step("k1")); err != nil {
		t.Fatalf("first commit: %v", err)
	}
	got, err := w.Tasks.GetTask(ctx, "ten-a", task.ID)
	if err != nil || got.StepCount != 1 {
		t.Errorf("task after the commit = %+v, %v; want one step", got, err)
	}
	if s, err := w.Chat.GetSession(ctx, "ten-a", sess.ID); err != nil || s.MessageCount != 2 {
		t.Errorf("session after the commit = %+v, %v; want 2 messages", s, err)
	}
	if _, err := w.Tasks.GetIdempotency(ctx, "ten-a", "k1"); err != nil {
		t.Errorf("idempotency record: %v, want it stored", err)
	}

	if err := w.CommitStep(ctx, step("k2")); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("commit from a stale read: %v, want tasks.ErrConflict", err)
	}
	if _, err := w.Tasks.GetIdempotency(ctx, "ten-a", "k2"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("idempotency record of the failed commit: %v, want none (all or nothing)", err)
	}
	if entries, _ := w.Tasks.ListDebug(ctx, "ten-a", tasks.DebugFilter{TaskID: task.ID}); len(entries) != 1 {
		t.Errorf("debug entries = %d, want only the first commit's", len(entries))
	}
}
