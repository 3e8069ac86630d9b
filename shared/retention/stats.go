package retention

import (
	"log/slog"
	"strings"
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

// kindOf names the kind of an item by its sort key's first segment: the known item types by
// name, any other (verification or correction records, say) as <prefix>Records, so a new record
// kind is counted without a change here.
func kindOf(sk string) string {
	prefix, _, _ := strings.Cut(sk, "#")
	switch prefix {
	case "TASK":
		return "tasks"
	case "RUN":
		return "runs"
	case "SESSION":
		return "sessions"
	case "STEP":
		return "steps"
	case "DEBUG":
		return "debugEntries"
	case "IDEM":
		return "idempotencyRecords"
	case "MSG":
		return "messages"
	case "SNAP":
		return "snapshots"
	}
	return strings.ToLower(prefix) + "Records"
}
