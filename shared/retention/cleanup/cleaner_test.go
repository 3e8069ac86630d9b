package cleanup

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/runs/runsdb"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// cleanup runs c at the world's clock and checks that what it reports deleted is what left the
// tables, that it interrupted want, and that running it again at once changes nothing.
func (w *world) cleanup(t *testing.T, c *Cleaner, wantDeleted, wantInterrupted map[string]int) {
	t.Helper()
	before := w.counts(t)
	stats := c.Run(t.Context())
	if stats.Errors != 0 || !stats.Complete {
		t.Errorf("run: got %d errors, complete %v; want 0 errors, complete", stats.Errors, stats.Complete)
	}
	if gone := diff(before, w.counts(t)); !equalCounts(gone, stats.RecordsDeleted) {
		t.Errorf("run: reported deleted %v, but %v left the tables", stats.RecordsDeleted, gone)
	}
	if !equalCounts(stats.RecordsDeleted, wantDeleted) {
		t.Errorf("run: got deleted %v, want %v", stats.RecordsDeleted, wantDeleted)
	}
	if !equalCounts(stats.Interrupted, wantInterrupted) {
		t.Errorf("run: got interrupted %v, want %v", stats.Interrupted, wantInterrupted)
	}
	again := c.Run(t.Context())
	if len(again.RecordsDeleted) != 0 || len(again.Interrupted) != 0 || again.Errors != 0 || !again.Complete {
		t.Errorf("second run at once: got %+v, want nothing done", again)
	}
}

// TestCleanupOverTime ages one tenant's data of every kind through a quarter and runs the
// cleanup at each stage: what is past retention goes with everything under it, the rest stays.
func TestCleanupOverTime(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	c := w.cleaner(nil)

	// t0: a task completed in 30 steps, one failed, one left active; an abandoned run.
	done := w.run(t, 30, tasks.StatusCompleted)
	failed := w.run(t, 2, tasks.StatusActive)
	ft, _ := w.tasks.GetTask(ctx, tenant, failed.id)
	if err := w.tasks.FailTask(ctx, ft, "too many steps"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.chat.SetStatus(ctx, tenant, failed.sessionID, chat.StatusFailed); err != nil {
		t.Fatal(err)
	}
	idle := w.run(t, 2, tasks.StatusActive)
	w.putRun(t, "abandoned", w.t0, w.t0.Add(time.Hour), 3)
	// Within the idle threshold of the first cleanup: a task still going, a run still going.
	w.at(2*day - time.Hour)
	fresh := w.run(t, 1, tasks.StatusActive)
	w.at(2 * day)
	w.putRun(t, "going", w.clock.Now(), w.clock.Now().Add(time.Hour), 2)

	t.Run("day 2: idle task and session interrupted, idempotency records and the expired run gone", func(t *testing.T) {
		w.cleanup(t, c,
			map[string]int{"idempotencyRecords": 35, "runs": 1, "steps": 3},
			map[string]int{"tasks": 1, "sessions": 1})
		tk, err := w.tasks.GetTask(ctx, tenant, idle.id)
		if err != nil || tk.Status != tasks.StatusInterrupted {
			t.Fatalf("idle task: got %s, %v; want interrupted", tk.Status, err)
		}
		exp := w.clock.Now().Add(30 * day).Unix()
		if got := w.expiresAt(t, w.tables.Tasks, taskPK(idle.id), tasksdb.HeaderSK); got != exp {
			t.Errorf("interrupted task expires at %d, want %d (30 days)", got, exp)
		}
		for _, sk := range []string{"STEP#000000", "STEP#000001"} {
			if got := w.expiresAt(t, w.tables.Tasks, taskPK(idle.id), sk); got != exp {
				t.Errorf("%s of the interrupted task expires at %d, want the task's %d", sk, got, exp)
			}
		}
		sess, err := w.chat.GetSession(ctx, tenant, idle.sessionID)
		if err != nil || sess.Status != chat.StatusInterrupted || sess.ExpiresAt.Unix() != exp {
			t.Errorf("idle session: got %s expiring %v, %v; want interrupted expiring in 30 days", sess.Status, sess.ExpiresAt, err)
		}
		if tk, _ := w.tasks.GetTask(ctx, tenant, fresh.id); tk.Status != tasks.StatusActive {
			t.Errorf("task with a step an hour ago: got %s, want active", tk.Status)
		}
		if n := w.partition(t, w.tables.Tasks, runsdb.RunPK(tenant, "going")); n["runs"] != 1 || n["steps"] != 2 {
			t.Errorf("run still going: got %v, want its header and 2 entries", n)
		}
	})

	w.at(8 * day)
	t.Run("day 8: debug entries gone, the task idle since day 2 interrupted", func(t *testing.T) {
		w.cleanup(t, c,
			map[string]int{"debugEntries": 34, "idempotencyRecords": 2, "runs": 1, "steps": 2},
			map[string]int{"tasks": 1, "sessions": 1})
		// Interrupting brings the task's steps down to its expiry, so TTL takes them together.
		header := w.expiresAt(t, w.tables.Tasks, taskPK(fresh.id), tasksdb.HeaderSK)
		if got := w.expiresAt(t, w.tables.Tasks, taskPK(fresh.id), "STEP#000000"); got != header {
			t.Errorf("step of the task interrupted on day 8 expires at %d, want the task's %d", got, header)
		}
		if entries, err := w.tasks.ListDebug(ctx, tenant, tasks.DebugFilter{}); err != nil || len(entries) != 1 {
			t.Errorf("debug entries listed: got %d, %v; want only the one from day 2", len(entries), err)
		}
	})

	w.at(33 * day)
	t.Run("day 33: the interrupted task and session with their children, snapshots past 30 days", func(t *testing.T) {
		w.cleanup(t, c,
			map[string]int{"tasks": 1, "steps": 2, "sessions": 1, "messages": 2, "snapshots": 35, "debugEntries": 1},
			nil)
		if _, err := w.tasks.GetTask(ctx, tenant, idle.id); !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("task interrupted on day 2: got %v, want ErrNotFound", err)
		}
		if n := w.partition(t, w.tables.Messages, sessionPK(idle.sessionID)); len(n) != 0 {
			t.Errorf("messages of the session interrupted on day 2: got %v, want none", n)
		}
		msgs, err := w.chat.ListMessages(ctx, tenant, done.sessionID, 0, time.Time{})
		if err != nil || len(msgs.Messages) != 30 {
			t.Errorf("messages of the completed session: got %d, %v; want all 30 (only snapshots expire at 30 days)", len(msgs.Messages), err)
		}
	})

	w.at(60 * day)
	late := w.run(t, 1, tasks.StatusCompleted)
	w.at(91*day - time.Hour)
	current := w.run(t, 1, tasks.StatusActive)
	w.at(91 * day)
	t.Run("day 91: finished tasks and sessions with more than 25 children each", func(t *testing.T) {
		w.cleanup(t, c,
			map[string]int{"tasks": 3, "steps": 33, "sessions": 3, "messages": 33, "idempotencyRecords": 1, "debugEntries": 1, "snapshots": 1},
			nil)
		for _, tk := range []task{done, failed, fresh} {
			if n := w.partition(t, w.tables.Tasks, taskPK(tk.id)); len(n) != 0 {
				t.Errorf("task %s: left %v, want nothing", tk.id, n)
			}
			if n := w.partition(t, w.tables.Messages, sessionPK(tk.sessionID)); len(n) != 0 {
				t.Errorf("session %s: left %v, want nothing", tk.sessionID, n)
			}
		}
		for _, tk := range []task{late, current} {
			if n := w.partition(t, w.tables.Tasks, taskPK(tk.id)); n["tasks"] != 1 || n["steps"] != 1 {
				t.Errorf("task %s: got %v, want its header and step", tk.id, n)
			}
			if _, err := w.chat.GetSession(ctx, tenant, tk.sessionID); err != nil {
				t.Errorf("session %s: %v", tk.sessionID, err)
			}
		}
		if got := w.counts(t); !equalCounts(got, map[string]int{
			"tasks": 2, "steps": 2, "debugEntries": 1, "idempotencyRecords": 1, "sessions": 2, "messages": 2, "snapshots": 1,
		}) {
			t.Errorf("left in the tables: %v, want the two recent tasks' items", got)
		}
	})
}

// TestUnprocessedItemsAreRetried has DynamoDB leave part of the first batch unprocessed, as
// throttling does: the cleanup resends it and counts each item once.
func TestUnprocessedItemsAreRetried(t *testing.T) {
	w := newWorld(t)
	done := w.run(t, 30, tasks.StatusCompleted)
	var calls, heldBack atomic.Int32
	client := w.withMiddleware("unprocessed-once", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		batch, ok := in.Parameters.(*dynamodb.BatchWriteItemInput)
		if !ok || calls.Add(1) != 1 {
			return next.HandleInitialize(ctx, in)
		}
		sent, held := map[string][]types.WriteRequest{}, map[string][]types.WriteRequest{}
		for table, reqs := range batch.RequestItems {
			half := len(reqs) / 2
			held[table], sent[table] = reqs[:half], reqs[half:]
			heldBack.Add(int32(half))
		}
		in.Parameters = &dynamodb.BatchWriteItemInput{RequestItems: sent}
		out, md, err := next.HandleInitialize(ctx, in)
		if err == nil {
			out.Result.(*dynamodb.BatchWriteItemOutput).UnprocessedItems = held
		}
		return out, md, err
	})
	w.at(91 * day)
	w.cleanup(t, w.cleaner(client),
		map[string]int{"tasks": 1, "steps": 30, "sessions": 1, "messages": 30, "debugEntries": 30, "idempotencyRecords": 30, "snapshots": 30},
		nil)
	if heldBack.Load() == 0 {
		t.Fatal("no item was held back: the test did not exercise the retry")
	}
	if n := w.partition(t, w.tables.Tasks, taskPK(done.id)); len(n) != 0 {
		t.Errorf("task partition after the retry: %v, want empty", n)
	}
}

// TestDeadlineCutsRunShort gives a run too little time: it stops before its deadline, says it is
// not complete, and the next run finishes the work without doing any of it twice.
func TestDeadlineCutsRunShort(t *testing.T) {
	w := newWorld(t)
	for range 3 {
		w.run(t, 30, tasks.StatusCompleted)
	}
	w.at(91*day - time.Hour)
	keep := w.run(t, 1, tasks.StatusActive)
	w.at(91 * day)
	// Every write takes a minute of the cleanup's clock.
	client := w.withMiddleware("slow-writes", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		switch in.Parameters.(type) {
		case *dynamodb.BatchWriteItemInput, *dynamodb.DeleteItemInput:
			w.clock.Advance(time.Minute)
		}
		return next.HandleInitialize(ctx, in)
	})
	c := w.cleaner(client)
	c.Reserve = time.Minute
	before := w.counts(t)

	ctx, cancel := context.WithDeadline(t.Context(), w.clock.Now().Add(10*time.Minute))
	defer cancel()
	first := c.Run(ctx)
	if first.Complete || first.Errors != 0 {
		t.Fatalf("run with 10 minutes for about 60 minutes of work: got complete %v, %d errors; want incomplete without errors", first.Complete, first.Errors)
	}
	if deleted(first) == 0 {
		t.Fatal("run cut short deleted nothing: want some progress")
	}
	second := c.Run(t.Context())
	if !second.Complete || second.Errors != 0 {
		t.Fatalf("next run: got complete %v, %d errors; want complete", second.Complete, second.Errors)
	}
	total := map[string]int{}
	for _, s := range []Stats{first, second} {
		for k, n := range s.RecordsDeleted {
			total[k] += n
		}
	}
	want := map[string]int{"tasks": 3, "steps": 90, "sessions": 3, "messages": 90, "debugEntries": 90, "idempotencyRecords": 90, "snapshots": 90}
	if !equalCounts(total, want) {
		t.Errorf("deleted over both runs: got %v, want %v", total, want)
	}
	if gone := diff(before, w.counts(t)); !equalCounts(gone, want) {
		t.Errorf("left the tables: %v, want %v", gone, want)
	}
	if _, err := w.tasks.GetTask(t.Context(), tenant, keep.id); err != nil {
		t.Errorf("recent task: %v", err)
	}
	if third := c.Run(t.Context()); deleted(third) != 0 {
		t.Errorf("third run: deleted %v, want nothing", third.RecordsDeleted)
	}
}

// TestConcurrentWritesWin lands a write between the cleanup's read of an idle task or session and
// its interruption: the conditional write fails, the other write stands, and it is no error.
func TestConcurrentWritesWin(t *testing.T) {
	w := newWorld(t)
	tk := w.run(t, 2, tasks.StatusActive)
	other := w.run(t, 1, tasks.StatusActive)
	w.at(2 * day)
	var stepped, appended atomic.Bool
	client := w.withMiddleware("concurrent-writes", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		switch p := in.Parameters.(type) {
		case *dynamodb.UpdateItemInput:
			// The first task's interruption: a step of it lands first.
			if strings.Contains(*p.UpdateExpression, "REMOVE GSI2PK") && pkOf(p.Key) == taskPK(tk.id) && !stepped.Swap(true) {
				w.step(t, tk, tasks.StatusActive, page(99))
			}
		case *dynamodb.TransactWriteItemsInput:
			// The other task's session: a message is appended to it first.
			if !appended.Swap(true) {
				sess, err := w.chat.GetSession(ctx, tenant, other.sessionID)
				if err != nil {
					t.Error(err)
				} else if _, err := w.chat.Append(ctx, sess, chatdb.Step{Messages: []chat.Message{{Role: chat.RoleSystem, Content: "note"}}}); err != nil {
					t.Error(err)
				}
			}
		}
		return next.HandleInitialize(ctx, in)
	})
	stats := w.cleaner(client).Run(t.Context())
	if stats.Errors != 0 || stats.Interrupted["tasks"] != 1 || stats.Interrupted["sessions"] != 0 {
		t.Errorf("got interrupted %v, %d errors; want only the other task, no error", stats.Interrupted, stats.Errors)
	}
	got, err := w.tasks.GetTask(t.Context(), tenant, tk.id)
	if err != nil || got.Status != tasks.StatusActive || got.StepCount != 3 {
		t.Errorf("task stepped during the cleanup: got %s with %d steps, %v; want active with 3", got.Status, got.StepCount, err)
	}
	for _, id := range []string{tk.sessionID, other.sessionID} {
		if sess, err := w.chat.GetSession(t.Context(), tenant, id); err != nil || sess.Status != chat.StatusActive {
			t.Errorf("session %s written during the cleanup: got %s, %v; want active", id, sess.Status, err)
		}
	}
}

func TestStatsJSON(t *testing.T) {
	s := newStats()
	s.RecordsDeleted["tasks"] = 2
	s.Interrupted["sessions"] = 1
	s.Errors, s.DurationMs, s.Complete = 3, 1500, true
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"recordsDeleted":{"tasks":2},"interrupted":{"sessions":1},"errors":3,"durationMs":1500,"complete":true}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func pkOf(k map[string]types.AttributeValue) string {
	if s, ok := k["PK"].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// deleted is the number of items a run deleted, of every kind.
func deleted(s Stats) int {
	n := 0
	for _, c := range s.RecordsDeleted {
		n += c
	}
	return n
}
