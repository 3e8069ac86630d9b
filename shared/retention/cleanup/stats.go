package cleanup

import (
	"log/slog"
	"strings"

	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/runs/runsdb"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// Stats is what one cleanup run did (§4.15's recordsDeleted, errors and duration).
type Stats struct {
	// RecordsDeleted counts the items deleted, by kind (tasks, steps, debugEntries, sessions,
	// messages, snapshots, idempotencyRecords, runs, and <prefix>Records for any other kind).
	RecordsDeleted map[string]int `json:"recordsDeleted"`
	// Interrupted counts the active tasks and sessions marked interrupted, by kind.
	Interrupted map[string]int `json:"interrupted"`
	// Errors counts the items that could not be handled; each is logged, and retried next run.
	Errors     int   `json:"errors"`
	DurationMs int64 `json:"durationMs"`
	// Complete is false when the run stopped for its deadline; the next run goes on from there.
	Complete bool `json:"complete"`
}

func newStats() Stats {
	return Stats{RecordsDeleted: map[string]int{}, Interrupted: map[string]int{}}
}

// LogAttrs are the statistics as log attributes, under their JSON names.
func (s Stats) LogAttrs() []any {
	return []any{
		slog.Any("recordsDeleted", s.RecordsDeleted), slog.Any("interrupted", s.Interrupted),
		slog.Int("errors", s.Errors), slog.Int64("durationMs", s.DurationMs), slog.Bool("complete", s.Complete),
	}
}

// itemKinds are the stores whose items the cleanup deletes, each naming its own by sort key.
var itemKinds = []func(sk string) (string, bool){tasksdb.ItemKind, runsdb.ItemKind, chatdb.ItemKind}

// kindOf names the kind of an item by its sort key: as its store names it, or, for a key no
// store claims, as <first segment>Records, so a new record kind is counted without a change here.
func kindOf(sk string) string {
	for _, kind := range itemKinds {
		if k, ok := kind(sk); ok {
			return k
		}
	}
	prefix, _, _ := strings.Cut(sk, "#")
	return strings.ToLower(prefix) + "Records"
}
