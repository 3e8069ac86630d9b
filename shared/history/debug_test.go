package history

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// busyTask is a task with more debug entries than an export holds, listed newest first.
type busyTask struct{ entries int }

func (busyTask) GetTask(_ context.Context, _, id string) (tasks.Task, error) {
	return tasks.Task{ID: id, UserID: "u"}, nil
}

func (busyTask) Steps(context.Context, string, string) ([]tasks.Step, error) { return nil, nil }

func (busyTask) Verifications(context.Context, string, string) ([]tasks.Verification, error) {
	return nil, nil
}

func (busyTask) Corrections(context.Context, string, string) ([]tasks.Correction, error) {
	return nil, nil
}

func (b busyTask) ListDebug(_ context.Context, _ string, f tasksdb.DebugFilter) ([]tasks.DebugEntry, error) {
	t0 := time.Date(2026, 1, 27, 0, 0, 0, 0, time.UTC)
	var out []tasks.DebugEntry
	for i := b.entries - 1; i >= 0 && len(out) < f.Limit; i-- {
		out = append(out, tasks.DebugEntry{ID: fmt.Sprint(i), LogType: "llm_error", CreatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	return out, nil
}

type noMessages struct{}

func (noMessages) ListMessages(context.Context, string, string, int, time.Time) (chat.MessagePage, error) {
	return chat.MessagePage{}, chat.ErrNotFound
}

func TestExportKeepsTheNewestDebugEntries(t *testing.T) {
	cases := []struct {
		entries   int
		truncated bool
		first     string
	}{
		{MaxExportDebugEntries, false, "0"},
		{MaxExportDebugEntries + 5, true, "5"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.entries), func(t *testing.T) {
			x, err := ExportTask(t.Context(), busyTask{tc.entries}, noMessages{}, accounts.Identity{UserID: "u", TenantID: "t"}, "task", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			n := len(x.DebugEntries)
			if n != MaxExportDebugEntries || x.DebugEntriesTruncated != tc.truncated || x.DebugEntries[0].DebugID != tc.first ||
				x.DebugEntries[n-1].DebugID != fmt.Sprint(tc.entries-1) || x.Metrics.LLMErrors != n {
				t.Errorf("got %d entries %s..%s, truncated %v, %d llm errors; want %d from %s to the newest, truncated %v",
					n, x.DebugEntries[0].DebugID, x.DebugEntries[n-1].DebugID, x.DebugEntriesTruncated, x.Metrics.LLMErrors,
					MaxExportDebugEntries, tc.first, tc.truncated)
			}
		})
	}
}
