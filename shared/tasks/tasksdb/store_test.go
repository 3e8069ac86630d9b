package tasksdb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

type fixture struct {
	store *Store
	db    *dynamotest.DB
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	db := dynamotest.New(t)
	// Real time: DynamoDB Local runs TTL, so items must not look expired to it.
	f := &fixture{db: db, now: time.Now().UTC().Truncate(time.Second)}
	f.store = New(db.Client, db.Tables["TasksTable"], tasks.DefaultRetention)
	f.store.Now = func() time.Time { return f.now }
	return f
}

func (f *fixture) append(t *testing.T, task tasks.Task, isNew bool, action string, status tasks.Status) error {
	t.Helper()
	items, err := f.store.StepItems(task, isNew, tasks.Step{Index: task.StepCount, Thought: "t", Action: action}, status)
	if err != nil {
		t.Fatal(err)
	}
	return dynamo.Write(context.Background(), f.db.Client, items)
}

func newTask(id string) tasks.Task {
	return tasks.Task{ID: id, TenantID: "ten-a", UserID: "u1", SessionID: "s1", URL: "https://shop.example/cart", Query: "buy socks"}
}

func TestStepsAppendInOrder(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := newTask("t1")
	if err := f.append(t, task, true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatalf("first step: %v", err)
	}
	for i, action := range []string{`setValue(2, "x")`, "finish()"} {
		got, err := f.store.GetTask(ctx, "ten-a", "t1")
		if err != nil {
			t.Fatal(err)
		}
		status := tasks.StatusActive
		if action == "finish()" {
			status = tasks.StatusCompleted
		}
		if err := f.append(t, got, false, action, status); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	got, err := f.store.GetTask(ctx, "ten-a", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.StepCount != 3 || got.Status != tasks.StatusCompleted || got.Query != "buy socks" || got.SessionID != "s1" {
		t.Errorf("task = %+v, want 3 steps, completed, its query and session", got)
	}
	steps, err := f.store.Steps(ctx, "ten-a", "t1")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for i, s := range steps {
		if s.Index != i {
			t.Errorf("step %d has index %d", i, s.Index)
		}
		actions = append(actions, s.Action)
	}
	if want := []string{"click(1)", `setValue(2, "x")`, "finish()"}; len(actions) != 3 || actions[0] != want[0] || actions[2] != want[2] {
		t.Errorf("actions = %v, want %v", actions, want)
	}
	// A finished task takes no further step.
	if err := f.append(t, got, false, "click(1)", tasks.StatusActive); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("step on a completed task: %v, want ErrConflict", err)
	}
}

func TestTenantIsolationAndExpiry(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.GetTask(ctx, "ten-b", "t1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("another tenant's GetTask: %v, want ErrNotFound", err)
	}
	if steps, err := f.store.Steps(ctx, "ten-b", "t1"); err != nil || len(steps) != 0 {
		t.Errorf("another tenant's Steps = %d, %v; want none", len(steps), err)
	}
	f.now = f.now.Add(tasks.DefaultRetention.Active + time.Second)
	if _, err := f.store.GetTask(ctx, "ten-a", "t1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("GetTask past expiresAt: %v, want ErrNotFound (TTL deletes lazily)", err)
	}
}

func TestConcurrentStepsOneWins(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	task, err := f.store.GetTask(ctx, "ten-a", "t1")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			items, err := f.store.StepItems(task, false, tasks.Step{Index: 1, Action: "click(2)"}, tasks.StatusActive)
			if err == nil {
				err = dynamo.Write(ctx, f.db.Client, items)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, tasks.ErrConflict):
		default:
			var tce interface{ ErrorCode() string }
			if errors.As(err, &tce) && tce.ErrorCode() == "TransactionConflict" {
				continue
			}
			t.Errorf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d of 8 concurrent appends won, want exactly 1", wins)
	}
	steps, _ := f.store.Steps(ctx, "ten-a", "t1")
	if len(steps) != 2 {
		t.Errorf("%d steps stored, want 2", len(steps))
	}
}

func TestFailTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	task, _ := f.store.GetTask(ctx, "ten-a", "t1")
	stale := task
	stale.StepCount = 0
	if err := f.store.FailTask(ctx, stale, "x"); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("FailTask with a stale count: %v, want ErrConflict", err)
	}
	if err := f.store.FailTask(ctx, task, "too many steps"); err != nil {
		t.Fatal(err)
	}
	got, _ := f.store.GetTask(ctx, "ten-a", "t1")
	if got.Status != tasks.StatusFailed || got.FailureReason != "too many steps" {
		t.Errorf("task = %s %q, want failed with the reason", got.Status, got.FailureReason)
	}
	out, err := f.db.Client.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), IndexName: aws.String("GSI2"),
		KeyConditionExpression:    aws.String("GSI2PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: ActiveIndexPartition}},
	})
	if err != nil || out.Count != 0 {
		t.Errorf("active index holds %d items (%v), want 0 after the task failed", out.Count, err)
	}
}

func TestIdempotencyRecords(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.store.GetIdempotency(ctx, "ten-a", "k1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("GetIdempotency before writing: %v, want ErrNotFound", err)
	}
	rec := tasks.IdempotencyRecord{Key: "k1", RequestHash: "h", StatusCode: 200, Body: []byte(`{"ok":true}`)}
	item, err := f.store.IdempotencyItem("ten-a", rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.Write(ctx, f.db.Client, []dynamo.Item{item}); err != nil {
		t.Fatal(err)
	}
	got, err := f.store.GetIdempotency(ctx, "ten-a", "k1")
	if err != nil || got.RequestHash != "h" || string(got.Body) != `{"ok":true}` || got.StatusCode != 200 {
		t.Errorf("GetIdempotency = %+v, %v; want the stored record", got, err)
	}
	if _, err := f.store.GetIdempotency(ctx, "ten-b", "k1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("another tenant's key: %v, want ErrNotFound", err)
	}
	if err := dynamo.Write(ctx, f.db.Client, []dynamo.Item{item}); !errors.Is(err, tasks.ErrIdempotencyRace) {
		t.Errorf("writing the key twice: %v, want ErrIdempotencyRace", err)
	}
	f.now = f.now.Add(tasks.DefaultRetention.Idempotency + time.Second)
	if _, err := f.store.GetIdempotency(ctx, "ten-a", "k1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("expired record: %v, want ErrNotFound", err)
	}
	item, _ = f.store.IdempotencyItem("ten-a", rec)
	if err := dynamo.Write(ctx, f.db.Client, []dynamo.Item{item}); err != nil {
		t.Errorf("rewriting an expired key: %v, want success", err)
	}
}

func TestDebugEntries(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	base := f.now
	entries := []tasks.DebugEntry{
		{ID: "d1", TaskID: "t1", LogType: "step", CreatedAt: base},
		{ID: "d2", TaskID: "t2", LogType: "llm_error", CreatedAt: base.Add(time.Minute)},
		{ID: "d3", TaskID: "t1", LogType: "step", CreatedAt: base.Add(2 * time.Minute), Data: map[string]any{"promptTokens": 12}},
	}
	for _, e := range entries {
		if err := f.store.PutDebug(ctx, "ten-a", e); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.store.PutDebug(ctx, "ten-b", tasks.DebugEntry{ID: "other", TaskID: "t9", LogType: "step", CreatedAt: base}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		filter tasks.DebugFilter
		want   []string
	}{
		{"all, newest first", tasks.DebugFilter{}, []string{"d3", "d2", "d1"}},
		{"limit", tasks.DebugFilter{Limit: 2}, []string{"d3", "d2"}},
		{"one task", tasks.DebugFilter{TaskID: "t1"}, []string{"d3", "d1"}},
		{"log type", tasks.DebugFilter{LogType: "llm_error"}, []string{"d2"}},
		{"since", tasks.DebugFilter{Since: base.Add(30 * time.Second)}, []string{"d3", "d2"}},
		{"task and since", tasks.DebugFilter{TaskID: "t1", Since: base.Add(30 * time.Second)}, []string{"d3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.store.ListDebug(ctx, "ten-a", tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			if len(ids) != len(tc.want) {
				t.Fatalf("ids = %v, want %v", ids, tc.want)
			}
			for i := range ids {
				if ids[i] != tc.want[i] {
					t.Errorf("ids = %v, want %v", ids, tc.want)
					break
				}
			}
		})
	}
	f.now = base.Add(tasks.DefaultRetention.Debug + time.Hour)
	if got, _ := f.store.ListDebug(ctx, "ten-a", tasks.DebugFilter{}); len(got) != 0 {
		t.Errorf("%d entries past the debug retention, want 0", len(got))
	}
}

func TestAlignStepsToTheEndedTask(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	// The task ends a day later: its first step was written with the provisional retention.
	f.now = f.now.Add(24 * time.Hour)
	task, _ := f.store.GetTask(ctx, "ten-a", "t1")
	if err := f.append(t, task, false, "finish()", tasks.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	if err := f.store.AlignSteps(ctx, "ten-a", "t1"); err != nil {
		t.Fatal(err)
	}
	want := f.now.Add(tasks.DefaultRetention.Finished).Unix()
	out, err := f.db.Client.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), KeyConditionExpression: aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: TaskPK("ten-a", "t1")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		n, _ := it["expiresAt"].(*types.AttributeValueMemberN)
		sk := it["SK"].(*types.AttributeValueMemberS).Value
		if n == nil || n.Value != fmt.Sprint(want) {
			t.Errorf("%s expiresAt = %v, want the ended task's %d", sk, n, want)
		}
	}
	if err := f.store.AlignSteps(ctx, "ten-a", "gone"); err != nil {
		t.Errorf("AlignSteps of a missing task: %v, want nil", err)
	}
}

// The engine logs each plan change as a "plan" entry whose data holds the plan: nested lists and
// maps come back as written, and the log type filters them.
func TestPlanDebugEntries(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	plan := map[string]any{
		"revision": 2.0, "reason": "verification failed",
		"plan": map[string]any{"currentStepIndex": 1.0, "steps": []any{
			map[string]any{"description": "Open the cart", "status": "done"},
			map[string]any{"description": "Check out", "status": "in_progress", "condition": "the cart is not empty", "onFalse": "stop"},
		}},
	}
	for _, e := range []tasks.DebugEntry{
		{ID: "d1", TaskID: "t1", LogType: "step", CreatedAt: f.now},
		{ID: "d2", TaskID: "t1", LogType: "plan", Data: plan, CreatedAt: f.now.Add(time.Second)},
	} {
		if err := f.store.PutDebug(ctx, "ten-a", e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.store.ListDebug(ctx, "ten-a", tasks.DebugFilter{TaskID: "t1", LogType: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "d2" || !reflect.DeepEqual(got[0].Data, plan) {
		t.Errorf("plan entries: got %+v, want d2 with %v", got, plan)
	}
}

// TestTaskLease: one holder at a time, only on the task as it was read, ended by the step's
// commit or by its release.
func TestTaskLease(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	task := newTask("t1")
	if err := f.append(t, task, true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	task, _ = f.store.GetTask(ctx, "ten-a", "t1")
	until := f.now.Add(35 * time.Second)
	if err := f.store.LeaseTask(ctx, task, "a", until); err != nil {
		t.Fatalf("first lease: %v", err)
	}
	if err := f.store.LeaseTask(ctx, task, "b", until); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("second lease: %v, want ErrConflict", err)
	}
	if err := f.store.ReleaseTask(ctx, "ten-a", "t1", "b"); err != nil {
		t.Errorf("release by a non-holder: %v, want nil (nothing to do)", err)
	}
	if err := f.store.ReleaseTask(ctx, "ten-a", "t1", "a"); err != nil {
		t.Fatal(err)
	}
	if err := f.store.LeaseTask(ctx, task, "b", until); err != nil {
		t.Fatalf("lease after the release: %v", err)
	}
	if err := f.append(t, task, false, "click(2)", tasks.StatusActive); err != nil {
		t.Fatalf("the holder's commit: %v", err)
	}
	if err := f.store.LeaseTask(ctx, task, "c", until); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("lease on the task as it was before the commit: %v, want ErrConflict", err)
	}
	task, _ = f.store.GetTask(ctx, "ten-a", "t1")
	if err := f.store.LeaseTask(ctx, task, "c", until); err != nil {
		t.Errorf("lease after the commit: %v, want the commit to have ended the last one", err)
	}
}

// TestIdempotencyClaim: a claim is pending until the response completes it; a second claim is a
// race; a released claim frees the key; a claim completes only for its own request body.
func TestIdempotencyClaim(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	until := f.now.Add(35 * time.Second)
	if err := f.store.ClaimIdempotency(ctx, "ten-a", "k", "h", "c1", until); err != nil {
		t.Fatal(err)
	}
	if rec, err := f.store.GetIdempotency(ctx, "ten-a", "k"); err != nil || !rec.Pending || rec.RequestHash != "h" {
		t.Errorf("claimed record = %+v, %v; want pending with its hash", rec, err)
	}
	if err := f.store.ClaimIdempotency(ctx, "ten-a", "k", "h", "c2", until); !errors.Is(err, tasks.ErrIdempotencyRace) {
		t.Errorf("second claim: %v, want ErrIdempotencyRace", err)
	}
	if err := f.store.ReleaseIdempotency(ctx, "ten-a", "k", "c2"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.GetIdempotency(ctx, "ten-a", "k"); err != nil {
		t.Errorf("another claimer's release removed the claim: %v", err)
	}
	complete := func(hash string) error {
		it, err := f.store.IdempotencyItem("ten-a", tasks.IdempotencyRecord{Key: "k", RequestHash: hash, StatusCode: 200, Body: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return dynamo.Write(ctx, f.db.Client, []dynamo.Item{it})
	}
	if err := complete("other"); !errors.Is(err, tasks.ErrIdempotencyRace) {
		t.Errorf("completing the claim with another body: %v, want ErrIdempotencyRace", err)
	}
	if err := complete("h"); err != nil {
		t.Fatalf("completing the claim: %v", err)
	}
	if rec, err := f.store.GetIdempotency(ctx, "ten-a", "k"); err != nil || rec.Pending || string(rec.Body) != "{}" {
		t.Errorf("completed record = %+v, %v; want the response", rec, err)
	}
	if err := f.store.ReleaseIdempotency(ctx, "ten-a", "k", "c1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.GetIdempotency(ctx, "ten-a", "k"); err != nil {
		t.Errorf("releasing a completed record removed it: %v", err)
	}
	// A released claim frees the key at once.
	if err := f.store.ClaimIdempotency(ctx, "ten-a", "k2", "h", "c3", until); err != nil {
		t.Fatal(err)
	}
	if err := f.store.ReleaseIdempotency(ctx, "ten-a", "k2", "c3"); err != nil {
		t.Fatal(err)
	}
	if err := f.store.ClaimIdempotency(ctx, "ten-a", "k2", "h", "c4", until); err != nil {
		t.Errorf("claim after a release: %v", err)
	}
}

// A corrupt timestamp is a store error, not a zero time that passes for a real one.
func TestCorruptTimestampIsAnError(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	for _, sk := range []string{HeaderSK, stepSK(0)} {
		_, err := f.db.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(f.db.Tables["TasksTable"]), Key: dynamo.Key(TaskPK("ten-a", "t1"), sk),
			UpdateExpression:          aws.String("SET createdAt = :bad"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":bad": &types.AttributeValueMemberS{Value: "yesterday"}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.store.GetTask(ctx, "ten-a", "t1"); err == nil || errors.Is(err, tasks.ErrNotFound) || !strings.Contains(err.Error(), "createdAt") {
		t.Errorf("GetTask with a corrupt createdAt: %v, want an error naming createdAt", err)
	}
	if _, err := f.store.Steps(ctx, "ten-a", "t1"); err == nil || !strings.Contains(err.Error(), "createdAt") {
		t.Errorf("Steps with a corrupt createdAt: %v, want an error naming createdAt", err)
	}
}
