package cleanup

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/tasks"
)

// recordedTask writes a task of steps steps at the clock's time, the last with the final status;
// each step after the first verifies the one before, fails it and corrects it, in the step's
// transaction as the interact engine does. It returns the task's ID.
func (w *world) recordedTask(t *testing.T, steps int, final tasks.Status) string {
	t.Helper()
	ctx := t.Context()
	task := tasks.Task{ID: uuid.NewString(), TenantID: tenant, UserID: user, URL: "https://shop.example/", Query: "buy socks"}
	for i := range steps {
		status := tasks.StatusActive
		if i == steps-1 {
			status = final
		}
		items, err := w.tasks.StepItems(task, i == 0, tasks.Step{Index: i, Action: "click(1)"}, status)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			v, err := w.tasks.VerificationItem(tenant, tasks.Verification{TaskID: task.ID, StepIndex: i - 1, Action: "click(1)", Verdict: tasks.Unverified, Method: "deterministic"})
			if err != nil {
				t.Fatal(err)
			}
			c, err := w.tasks.CorrectionItem(tenant, tasks.Correction{TaskID: task.ID, StepIndex: i - 1, Strategy: tasks.AlternativeSelector, FailedAction: "click(1)"})
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, v, c)
		}
		if err := dynamo.Write(ctx, w.db.Client, items); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if task, err = w.tasks.GetTask(ctx, tenant, task.ID); err != nil {
			t.Fatal(err)
		}
	}
	return task.ID
}

// records counts the task's verification and correction records as its store reads them.
func (w *world) records(t *testing.T, taskID string) int {
	t.Helper()
	vs, err := w.tasks.Verifications(t.Context(), tenant, taskID)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := w.tasks.Corrections(t.Context(), tenant, taskID)
	if err != nil {
		t.Fatal(err)
	}
	return len(vs) + len(cs)
}

// TestRecordsGoAtTheirOwnRetention keeps records for less than their task: the cleanup deletes
// them when they expire and leaves the task, which goes later with its steps.
func TestRecordsGoAtTheirOwnRetention(t *testing.T) {
	w := newWorld(t)
	w.tasks.Retention.Records = 10 * day
	c := w.cleaner(nil)
	c.Config.Tasks.Records = 10 * day
	done := w.recordedTask(t, 3, tasks.StatusCompleted)

	w.at(10*day - time.Second)
	if n := w.records(t, done); n != 4 {
		t.Fatalf("records before their expiry: got %d, want 4", n)
	}
	w.cleanup(t, c, nil, nil)

	w.at(10 * day)
	w.cleanup(t, c, map[string]int{"verificationRecords": 2, "correctionRecords": 2}, nil)
	if n := w.partition(t, w.tables.Tasks, taskPK(done)); n["tasks"] != 1 || n["steps"] != 3 || len(n) != 2 {
		t.Errorf("task after its records expired: got %v, want its header and 3 steps", n)
	}

	w.at(90 * day)
	w.cleanup(t, c, map[string]int{"tasks": 1, "steps": 3}, nil)
}

// TestRecordsGoWithTheirTask ends tasks before their records would expire: an interrupted task
// (30 days) takes its records with it, and so does a completed one whose records expire with it.
func TestRecordsGoWithTheirTask(t *testing.T) {
	w := newWorld(t)
	c := w.cleaner(nil)
	completed := w.recordedTask(t, 2, tasks.StatusCompleted)
	idle := w.recordedTask(t, 3, tasks.StatusActive)

	w.at(2 * day)
	w.cleanup(t, c, nil, map[string]int{"tasks": 1})
	// Interrupting brings the records down to the task's expiry, index entry included, so that
	// TTL and the cleanup take them together.
	exp := w.clock.Now().Add(tasks.DefaultRetention.Interrupted)
	for _, raw := range w.scan(t, w.tables.Tasks) {
		sk := dynamo.StringOf(raw, "SK")
		if dynamo.StringOf(raw, "PK") != taskPK(idle) || !isRecord(sk) {
			continue
		}
		if got, index := dynamo.Int64Of(raw, "expiresAt"), dynamo.StringOf(raw, "RetentionSK"); got != exp.Unix() || index != expiry.SortKey(exp) {
			t.Errorf("%s of the interrupted task: got expiry %d (index %s), want the task's %d", sk, got, index, exp.Unix())
		}
	}

	w.at(32 * day)
	w.cleanup(t, c, map[string]int{"tasks": 1, "steps": 3, "verificationRecords": 2, "correctionRecords": 2}, nil)
	if n := w.partition(t, w.tables.Tasks, taskPK(idle)); len(n) != 0 {
		t.Errorf("interrupted task after its retention: left %v, want nothing", n)
	}
	if n := w.records(t, completed); n != 2 {
		t.Errorf("records of the completed task on day 32: got %d, want 2", n)
	}

	w.at(90 * day)
	w.cleanup(t, c, map[string]int{"tasks": 1, "steps": 2, "verificationRecords": 1, "correctionRecords": 1}, nil)
	if got := w.counts(t); len(got) != 0 {
		t.Errorf("left in the tables: %v, want nothing", got)
	}
}

func isRecord(sk string) bool {
	k := kindOf(sk)
	return k == "verificationRecords" || k == "correctionRecords"
}
