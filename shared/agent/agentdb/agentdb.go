// Package agentdb commits an interact step (commit.Step) as one DynamoDB transaction across the
// tasks and chat stores: the store side of the engine's StepWriter.
package agentdb

import (
	"context"
	"log/slog"

	"github.com/screenagent/backend/shared/agent/commit"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// Writer commits steps through the two stores' item builders.
type Writer struct {
	Tasks *tasksdb.Store
	Chat  *chatdb.Store
	DB    dynamo.Writer
	// Logger hears of a failed retention alignment after a commit; nil means slog.Default().
	Logger *slog.Logger
}

// CommitStep writes the step in one transaction. A condition that fails because the task or the
// session changed since it was read is tasks.ErrConflict.
func (w *Writer) CommitStep(ctx context.Context, c commit.Step) error {
	items, err := w.Tasks.StepItems(c.Task, c.IsNew, c.Step, c.Status)
	if err != nil {
		return err
	}
	batch, err := w.chatWrites(c)
	if err != nil {
		return err
	}
	items = append(items, dynamo.Items(tasks.ErrConflict, batch.Items...)...)
	records, err := w.recordItems(c)
	if err != nil {
		return err
	}
	if err := dynamo.Write(ctx, w.DB, append(items, records...)); err != nil {
		return err
	}
	// The messages written before a status change keep the old status's expiry until aligned;
	// a failure here leaves them to expire early, never loses the step.
	if err := w.Chat.AfterCommit(ctx, batch); err != nil {
		logger := w.Logger
		if logger == nil {
			logger = slog.Default()
		}
		logger.WarnContext(ctx, "align message retention", "sessionId", c.Session.ID, "error", err.Error())
	}
	return nil
}

// chatWrites are the writes of the step's messages: to a new session or appended to its own.
func (w *Writer) chatWrites(c commit.Step) (chatdb.Batch, error) {
	chatStep := chatdb.Step{Messages: c.Messages, Snapshot: c.Snapshot, Status: c.SessionStatus, TaskID: c.Task.ID}
	if c.NewSession {
		return w.Chat.CreateWrites(c.Session, chatStep, c.Now)
	}
	return w.Chat.AppendWrites(c.Session, chatStep, c.Now)
}

// recordItems are the step's records beside the task: debug entries, the verification and the
// correction of the last action, and the response kept for the Idempotency-Key.
func (w *Writer) recordItems(c commit.Step) ([]dynamo.Item, error) {
	tenant := c.Task.TenantID
	var builds []func() (dynamo.Item, error)
	for _, d := range c.Debug {
		builds = append(builds, func() (dynamo.Item, error) { return w.Tasks.DebugItem(tenant, d) })
	}
	if v := c.Verification; v != nil {
		builds = append(builds, func() (dynamo.Item, error) { return w.Tasks.VerificationItem(tenant, *v) })
	}
	if x := c.Correction; x != nil {
		builds = append(builds, func() (dynamo.Item, error) { return w.Tasks.CorrectionItem(tenant, *x) })
	}
	if r := c.Idempotency; r != nil {
		builds = append(builds, func() (dynamo.Item, error) { return w.Tasks.IdempotencyItem(tenant, *r) })
	}
	items := make([]dynamo.Item, 0, len(builds))
	for _, build := range builds {
		it, err := build()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}
