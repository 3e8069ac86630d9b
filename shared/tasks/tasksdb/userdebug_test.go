package tasksdb

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
)

// A user sees the debug entries of their own tasks only, even when other users' entries of the
// tenant crowd the index over several pages.
func TestListUserDebug(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	mine, theirs, gone, expired := newTask("mine"), newTask("theirs"), newTask("gone"), newTask("expired")
	theirs.UserID = "u2"
	for _, task := range []tasks.Task{mine, theirs, gone} {
		if err := f.append(t, task, true, "click(1)", tasks.StatusActive); err != nil {
			t.Fatal(err)
		}
	}
	// A task written long ago is past its expiry (TTL deletes lazily): its entries are hidden.
	now := f.now
	f.now = now.Add(-tasks.DefaultRetention.Active - time.Hour)
	if err := f.append(t, expired, true, "click(1)", tasks.StatusActive); err != nil {
		t.Fatal(err)
	}
	f.now = now
	// A task deleted under its entries hides them too.
	if _, err := f.db.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), Key: dynamo.Key(TaskPK("ten-a", "gone"), HeaderSK),
	}); err != nil {
		t.Fatal(err)
	}
	base := f.now.Add(-time.Hour)
	put := func(tenant, task, id, logType string, at time.Time) {
		t.Helper()
		if err := f.store.PutDebug(ctx, tenant, tasks.DebugEntry{ID: id, TaskID: task, LogType: logType, Data: map[string]any{"k": id}, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	put("ten-a", "mine", "m1", "step", base)
	put("ten-a", "mine", "m2", "llm_error", base.Add(time.Second))
	put("ten-a", "gone", "g1", "step", base.Add(2*time.Second))
	// 2.5 pages of the other user's entries, newer than every one of mine.
	for i := range debugPageSize*2 + debugPageSize/2 {
		put("ten-a", "theirs", fmt.Sprintf("t%03d", i), "step", base.Add(time.Minute+time.Duration(i)*time.Millisecond))
	}
	put("ten-a", "mine", "m3", "step", base.Add(10*time.Minute))
	put("ten-a", "expired", "e1", "step", base.Add(11*time.Minute))
	put("ten-b", "mine", "other-tenant", "step", base.Add(12*time.Minute))

	cases := []struct {
		name   string
		filter tasks.DebugFilter
		want   []string
	}{
		{"every entry of mine, newest first", tasks.DebugFilter{}, []string{"m3", "m2", "m1"}},
		{"limit", tasks.DebugFilter{Limit: 2}, []string{"m3", "m2"}},
		{"log type", tasks.DebugFilter{LogType: "llm_error"}, []string{"m2"}},
		{"since", tasks.DebugFilter{Since: base.Add(time.Second)}, []string{"m3", "m2"}},
		{"my task", tasks.DebugFilter{TaskID: "mine", LogType: "step"}, []string{"m3", "m1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.store.ListUserDebug(ctx, "ten-a", "u1", tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
			if len(got) > 0 && (got[0].TaskID != "mine" || got[0].Data["k"] != got[0].ID || got[0].CreatedAt.IsZero()) {
				t.Errorf("entry = %+v, want its task, data and time", got[0])
			}
		})
	}
	for _, task := range []string{"theirs", "gone", "expired", "nope"} {
		if _, err := f.store.ListUserDebug(ctx, "ten-a", "u1", tasks.DebugFilter{TaskID: task}); !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("task %s: got %v, want tasks.ErrNotFound", task, err)
		}
	}
	if got, err := f.store.ListUserDebug(ctx, "ten-a", "u2", tasks.DebugFilter{Limit: 1000}); err != nil || len(got) != debugPageSize*2+debugPageSize/2 {
		t.Errorf("the other user's entries: %d (%v), want %d", len(got), err, debugPageSize*2+debugPageSize/2)
	}
}
