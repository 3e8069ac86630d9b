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
	tenant := c.Task.TenantID
	items, err := w.Tasks.StepItems(c.Task, c.IsNew, c.Step, c.Status)
	if err != nil {
		return err
	}
	chatStep := chatdb.Step{Messages: c.Messages, Snapshot: c.Snapshot, Status: c.SessionStatus, TaskID: c.Task.ID}
	var batch chatdb.Batch
	if c.NewSession {
		batch, err = w.Chat.CreateWrites(c.Session, chatStep, c.Now)
	} else {
		batch, err = w.Chat.AppendWrites(c.Session, chatStep, c.Now)
	}
	if err != nil {
		return err
	}
	items = append(items, dynamo.Items(tasks.ErrConflict, batch.Items...)...)
	for _, d := range c.Debug {
		it, err := w.Tasks.DebugItem(tenant, d)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if c.Verification != nil {
		it, err := w.Tasks.VerificationItem(tenant, *c.Verification)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if c.Correction != nil {
		it, err := w.Tasks.CorrectionItem(tenant, *c.Correction)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if c.Idempotency != nil {
		it, err := w.Tasks.IdempotencyItem(tenant, *c.Idempotency)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if err := dynamo.Write(ctx, w.DB, items); err != nil {
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
