package tasksdb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
)

// stepWithRecords appends a step to the task read from the store (a new task when there is none)
// in one transaction with the records, as the interact engine does.
func (f *fixture) stepWithRecords(t *testing.T, taskID, action string, vs []tasks.Verification, cs []tasks.Correction) error {
	t.Helper()
	task, err := f.store.GetTask(context.Background(), "ten-a", taskID)
	isNew := errors.Is(err, tasks.ErrNotFound)
	if isNew {
		task = newTask(taskID)
	} else if err != nil {
		t.Fatal(err)
	}
	items, err := f.store.StepItems(task, isNew, tasks.Step{Index: task.StepCount, Thought: "t", Action: action}, tasks.StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		it, err := f.store.VerificationItem("ten-a", v)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	for _, c := range cs {
		it, err := f.store.CorrectionItem("ten-a", c)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	return dynamo.Write(context.Background(), f.db.Client, items)
}

func TestRecordsRoundTrip(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	t0 := f.now
	verified := tasks.Verification{
		TaskID: "t1", StepIndex: 0, Action: "click(3)", Verdict: tasks.Verified, Method: "deterministic",
		Expected: &tasks.Expectation{Description: "the cart opens", URLChanges: true, URLContains: "/cart", TextAppears: []string{"Your cart"}},
		Evidence: []string{"URL changed to https://shop.example/cart", `"Your cart" appeared`}, CreatedAt: t0.Add(time.Second),
	}
	failed := tasks.Verification{
		TaskID: "t1", StepIndex: 1, Action: "click(7)", Verdict: tasks.Unverified, Method: "deterministic",
		Expected: &tasks.Expectation{Description: "the order is placed", TextDisappears: []string{"Place order"}, PageChanges: true},
		Evidence: []string{"the page did not change"}, CreatedAt: t0.Add(2 * time.Second),
	}
	byModel := tasks.Verification{TaskID: "t1", StepIndex: 2, Action: "wait(2)", Verdict: tasks.Undecided, Method: "model", CreatedAt: t0.Add(3 * time.Second)}
	retry := tasks.Correction{
		TaskID: "t1", StepIndex: 1, Strategy: tasks.RetryWithDelay, Reason: "the page did not change",
		FailedAction: "click(7)", Action: "wait(2)", CreatedAt: t0.Add(2 * time.Second),
	}
	other := tasks.Correction{
		TaskID: "t1", StepIndex: 3, Strategy: tasks.AlternativeSelector, Reason: "element 7 not found",
		FailedAction: "click(7)", CreatedAt: t0.Add(4 * time.Second),
	}
	steps := []struct {
		action string
		vs     []tasks.Verification
		cs     []tasks.Correction
	}{
		{"click(3)", nil, nil},
		{"click(7)", []tasks.Verification{verified}, nil},
		{"wait(2)", []tasks.Verification{failed}, []tasks.Correction{retry}},
		{"click(7)", []tasks.Verification{byModel}, nil},
		{"click(8)", nil, []tasks.Correction{other}},
	}
	for i, s := range steps {
		if err := f.stepWithRecords(t, "t1", s.action, s.vs, s.cs); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}

	gotV, err := f.store.Verifications(ctx, "ten-a", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []tasks.Verification{verified, failed, byModel}; !reflect.DeepEqual(gotV, want) {
		t.Errorf("Verifications:\n got %+v\nwant %+v", gotV, want)
	}
	gotC, err := f.store.Corrections(ctx, "ten-a", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []tasks.Correction{retry, other}; !reflect.DeepEqual(gotC, want) {
		t.Errorf("Corrections:\n got %+v\nwant %+v", gotC, want)
	}

	stored, err := f.store.Steps(ctx, "ten-a", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(steps) {
		t.Errorf("Steps returned %d items, want the %d steps and no records", len(stored), len(steps))
	}
	for i, s := range stored {
		if s.Index != i || s.Action != steps[i].action {
			t.Errorf("step %d: got index %d action %q, want %d %q", i, s.Index, s.Action, i, steps[i].action)
		}
	}

	if v, err := f.store.Verifications(ctx, "ten-b", "t1"); err != nil || len(v) != 0 {
		t.Errorf("another tenant's Verifications: got %d, %v; want none", len(v), err)
	}
	if c, err := f.store.Corrections(ctx, "ten-b", "t1"); err != nil || len(c) != 0 {
		t.Errorf("another tenant's Corrections: got %d, %v; want none", len(c), err)
	}
}

func TestRecordsOfAFailedStepAreNotStored(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.stepWithRecords(t, "t1", "click(1)", nil, nil); err != nil {
		t.Fatal(err)
	}
	task, _ := f.store.GetTask(ctx, "ten-a", "t1")
	// Another request's step lands first: this one's transaction, records included, must fail.
	if err := f.stepWithRecords(t, "t1", "click(2)", nil, nil); err != nil {
		t.Fatal(err)
	}
	items, err := f.store.StepItems(task, false, tasks.Step{Index: task.StepCount, Action: "click(9)"}, tasks.StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := f.store.VerificationItem("ten-a", tasks.Verification{TaskID: "t1", StepIndex: 0, Verdict: tasks.Unverified, Method: "deterministic"})
	c, _ := f.store.CorrectionItem("ten-a", tasks.Correction{TaskID: "t1", StepIndex: 0, Strategy: tasks.AlternativeSelector})
	if err := dynamo.Write(ctx, f.db.Client, append(items, v, c)); !errors.Is(err, tasks.ErrConflict) {
		t.Fatalf("stale step with records: got %v, want ErrConflict", err)
	}
	if vs, err := f.store.Verifications(ctx, "ten-a", "t1"); err != nil || len(vs) != 0 {
		t.Errorf("verification records after the failed step: got %+v, %v; want none", vs, err)
	}
	if cs, err := f.store.Corrections(ctx, "ten-a", "t1"); err != nil || len(cs) != 0 {
		t.Errorf("correction records after the failed step: got %+v, %v; want none", cs, err)
	}
}

func TestRecordsOfOneStep(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	t0 := f.now
	if err := f.stepWithRecords(t, "t1", "click(1)", nil, nil); err != nil {
		t.Fatal(err)
	}
	first := tasks.Correction{TaskID: "t1", StepIndex: 0, Strategy: tasks.RetryWithDelay, FailedAction: "click(1)", CreatedAt: t0.Add(time.Second)}
	if err := f.stepWithRecords(t, "t1", "wait(2)",
		[]tasks.Verification{{TaskID: "t1", StepIndex: 0, Verdict: tasks.Undecided, Method: "deterministic", CreatedAt: t0.Add(time.Second)}},
		[]tasks.Correction{first}); err != nil {
		t.Fatal(err)
	}
	// The same step checked again later (the verifier's verdict) replaces its record; a second
	// correction of it is kept beside the first.
	second := tasks.Correction{TaskID: "t1", StepIndex: 0, Strategy: tasks.UpdatePlan, FailedAction: "click(1)", CreatedAt: t0.Add(2 * time.Second)}
	again := tasks.Verification{TaskID: "t1", StepIndex: 0, Verdict: tasks.Unverified, Method: "verifier", CreatedAt: t0.Add(2 * time.Second)}
	if err := f.stepWithRecords(t, "t1", "click(2)", []tasks.Verification{again}, []tasks.Correction{second}); err != nil {
		t.Fatal(err)
	}
	if vs, err := f.store.Verifications(ctx, "ten-a", "t1"); err != nil || !reflect.DeepEqual(vs, []tasks.Verification{again}) {
		t.Errorf("Verifications: got %+v, %v; want only the later check", vs, err)
	}
	if cs, err := f.store.Corrections(ctx, "ten-a", "t1"); err != nil || !reflect.DeepEqual(cs, []tasks.Correction{first, second}) {
		t.Errorf("Corrections: got %+v, %v; want both, oldest first", cs, err)
	}
}

func TestRecordsExpireAtTheirOwnRetention(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.store.Retention.Records = 10 * 24 * time.Hour
	if err := f.stepWithRecords(t, "t1", "click(1)", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.stepWithRecords(t, "t1", "click(2)",
		[]tasks.Verification{{TaskID: "t1", StepIndex: 0, Verdict: tasks.Unverified, Method: "deterministic"}},
		[]tasks.Correction{{TaskID: "t1", StepIndex: 0, Strategy: tasks.AlternativeTool}}); err != nil {
		t.Fatal(err)
	}
	pk := taskPK("ten-a", "t1")
	want := fmt.Sprint(f.now.Add(f.store.Retention.Records).Unix())
	for _, sk := range []string{verificationSK(0), correctionSK(0, f.now)} {
		item := f.raw(t, pk, sk, indexAttrs...)
		if item["expiresAt"] != want {
			t.Errorf("%s: got expiresAt %s, want %s (written + Retention.Records)", sk, item["expiresAt"], want)
		}
		wantIndexed(t, sk, item, pk, true)
	}
	// Written without a time, a record is made now.
	if vs, _ := f.store.Verifications(ctx, "ten-a", "t1"); len(vs) != 1 || !vs[0].CreatedAt.Equal(f.now) {
		t.Errorf("Verifications: got %+v, want one made at %v", vs, f.now)
	}

	f.now = f.now.Add(f.store.Retention.Records)
	if vs, err := f.store.Verifications(ctx, "ten-a", "t1"); err != nil || len(vs) != 0 {
		t.Errorf("Verifications past their retention: got %d, %v; want none", len(vs), err)
	}
	if cs, err := f.store.Corrections(ctx, "ten-a", "t1"); err != nil || len(cs) != 0 {
		t.Errorf("Corrections past their retention: got %d, %v; want none", len(cs), err)
	}
	if steps, err := f.store.Steps(ctx, "ten-a", "t1"); err != nil || len(steps) != 2 {
		t.Errorf("Steps of the task that outlives its records: got %d, %v; want 2", len(steps), err)
	}
}

func TestRecordItemsNeedATaskAndAStep(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name   string
		taskID string
		step   int
	}{
		{"no task", "", 0},
		{"negative step", "t1", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := f.store.VerificationItem("ten-a", tasks.Verification{TaskID: tc.taskID, StepIndex: tc.step}); err == nil {
				t.Error("VerificationItem: got no error, want one")
			}
			if _, err := f.store.CorrectionItem("ten-a", tasks.Correction{TaskID: tc.taskID, StepIndex: tc.step}); err == nil {
				t.Error("CorrectionItem: got no error, want one")
			}
		})
	}
}
