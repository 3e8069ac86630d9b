// Package commit describes, in domain terms, everything one interact step writes: the task's
// step, the chat messages and page snapshot, the debug, verification, correction and
// idempotency records. The engine fills a Step; a store-side writer (agentdb) turns it into one
// all-or-nothing transaction across the stores, so the engine knows no database type.
package commit

import (
	"time"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/tasks"
)

// Step is one step's writes. Either all of them land or none does; a task or session changed
// by someone else since it was read fails the commit with tasks.ErrConflict.
type Step struct {
	// Task is the task as read before the step (or the new task); IsNew creates it.
	Task  tasks.Task
	IsNew bool
	Step  tasks.Step
	// Status is the task's status after the step.
	Status tasks.Status

	// Session is the task's chat session as read (or the new one); NewSession creates it.
	Session    chat.Session
	NewSession bool
	// Messages are appended to the session in order; one of them references Snapshot, the
	// page to store (nil when there is none or it is stored already).
	Messages []chat.Message
	Snapshot *chat.Snapshot
	// SessionStatus is the session's status after the step, following its task.
	SessionStatus chat.Status

	Debug        []tasks.DebugEntry
	Verification *tasks.Verification
	Correction   *tasks.Correction
	// Idempotency is the response stored under the request's Idempotency-Key, nil without one.
	Idempotency *tasks.IdempotencyRecord

	Now time.Time
}
