package main

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/screenagent/backend/shared/retention/cleanup"
)

// cleaner is the cleanup the handler runs.
type cleaner interface {
	Run(ctx context.Context) cleanup.Stats
}

// newHandler runs one cleanup per scheduled event, whatever the event says, within the
// invocation's deadline, and logs and returns its statistics. Failures of single items are in
// the statistics, not an error: an error would only make Lambda retry what the next scheduled
// run retries anyway.
func newHandler(c cleaner, logger *slog.Logger) func(context.Context, json.RawMessage) (cleanup.Stats, error) {
	return func(ctx context.Context, _ json.RawMessage) (cleanup.Stats, error) {
		stats := c.Run(ctx)
		logger.InfoContext(ctx, "retention cleanup", stats.LogAttrs()...)
		return stats, nil
	}
}
