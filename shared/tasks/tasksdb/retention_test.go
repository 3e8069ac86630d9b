package tasksdb

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/tasks"
)

// raw reads an item's attributes as strings (numbers in decimal), "" for those it lacks.
func (f *fixture) raw(t *testing.T, pk, sk string, names ...string) map[string]string {
	t.Helper()
	out, err := f.db.Client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), Key: dynamo.Key(pk, sk), ConsistentRead: aws.Bool(true),
	})
	if err != nil || out.Item == nil {
		t.Fatalf("get %s %s: %v (found %v)", pk, sk, err, out != nil && out.Item != nil)
	}
	got := map[string]string{}
	for _, n := range names {
		switch v := out.Item[n].(type) {
		case *types.AttributeValueMemberS:
			got[n] = v.Value
		case *types.AttributeValueMemberN:
			got[n] = v.Value
		}
	}
	return got
}

// wantIndexed checks that an item is in the Retention index under its expiry, or not at all.
func wantIndexed(t *testing.T, what string, item map[string]string, pk string, indexed bool) {
	t.Helper()
	if !indexed {
		if item["RetentionPK"] != "" || item["RetentionSK"] != "" {
			t.Errorf("%s: got Retention keys %q / %q, want none", what, item["RetentionPK"], item["RetentionSK"])
		}
		return
	}
	var exp int64
	fmt.Sscan(item["expiresAt"], &exp)
	wantPK, wantSK := expiry.Keys(pk, time.Unix(exp, 0))
	if item["RetentionPK"] != wantPK || item["RetentionSK"] != wantSK {
		t.Errorf("%s: got Retention keys %q / %q, want %q / %q (its expiry)", what, item["RetentionPK"], item["RetentionSK"], wantPK, wantSK)
	}
}

var indexAttrs = []string{"expiresAt", "RetentionPK", "RetentionSK", "GSI2PK"}

func TestRetentionIndexKeys(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	pk := TaskPK("ten-a", "t1")
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	header := f.raw(t, pk, HeaderSK, indexAttrs...)
	if header["GSI2PK"] != ActiveIndexPartition {
		t.Errorf("active task: got GSI2PK %q, want %q", header["GSI2PK"], ActiveIndexPartition)
	}
	wantIndexed(t, "active task", header, pk, false)
	wantIndexed(t, "step", f.raw(t, pk, stepSK(0), indexAttrs...), pk, false)

	task, _ := f.store.GetTask(ctx, "ten-a", "t1")
	if err := f.append(t, task, false, "finish()", tasks.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	header = f.raw(t, pk, HeaderSK, indexAttrs...)
	if header["GSI2PK"] != "" {
		t.Errorf("completed task: got GSI2PK %q, want none", header["GSI2PK"])
	}
	wantIndexed(t, "completed task", header, pk, true)

	if err := f.append(t, newTask("t2"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	t2, _ := f.store.GetTask(ctx, "ten-a", "t2")
	if err := f.store.FailTask(ctx, t2, "too many steps"); err != nil {
		t.Fatal(err)
	}
	wantIndexed(t, "failed task", f.raw(t, TaskPK("ten-a", "t2"), HeaderSK, indexAttrs...), TaskPK("ten-a", "t2"), true)

	if err := f.store.PutDebug(ctx, "ten-a", tasks.DebugEntry{ID: "d1", TaskID: "t1", LogType: "step", CreatedAt: f.now}); err != nil {
		t.Fatal(err)
	}
	debugSK := "DEBUG#" + dynamo.Sortable(f.now) + "#d1"
	wantIndexed(t, "debug entry", f.raw(t, pk, debugSK, indexAttrs...), pk, true)

	idem, err := f.store.IdempotencyItem("ten-a", tasks.IdempotencyRecord{Key: "k1", RequestHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.Write(ctx, f.db.Client, []dynamo.Item{idem}); err != nil {
		t.Fatal(err)
	}
	wantIndexed(t, "idempotency record", f.raw(t, idemPK("ten-a", "k1"), "IDEM", indexAttrs...), idemPK("ten-a", "k1"), true)
}

func TestExpiredStepsAreAbsent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	task, _ := f.store.GetTask(ctx, "ten-a", "t1")
	if err := f.append(t, task, false, "click(2)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	// The first step past its expiry, as TTL lag leaves it.
	_, err := f.db.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), Key: dynamo.Key(TaskPK("ten-a", "t1"), stepSK(0)),
		UpdateExpression:          aws.String("SET expiresAt = :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": &types.AttributeValueMemberN{Value: fmt.Sprint(f.now.Unix())}},
	})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := f.store.Steps(ctx, "ten-a", "t1")
	if err != nil || len(steps) != 1 || steps[0].Index != 1 {
		t.Errorf("Steps with the first expired: got %+v, %v; want only step 1", steps, err)
	}
}

// An expired task takes no more writes, so that the cleanup can delete its partition safely.
func TestExpiredTaskIsFrozen(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.append(t, newTask("t1"), true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	task, _ := f.store.GetTask(ctx, "ten-a", "t1")
	f.now = f.now.Add(tasks.DefaultRetention.Active + time.Second)
	if err := f.store.FailTask(ctx, task, "late"); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("FailTask on an expired task: got %v, want ErrConflict", err)
	}
	if err := f.append(t, task, false, "click(2)", tasks.StatusActive); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("step on an expired task: got %v, want ErrConflict", err)
	}
}
