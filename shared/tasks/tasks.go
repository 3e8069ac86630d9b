// Package tasks is the server-held state of an interact task: the task, its steps (the action
// history the prompt is built from), idempotency records and debug entries.
package tasks

import (
	"errors"
	"time"
)

// Status is a task's lifecycle state.
type Status string

// Task statuses (§4.9's orchestrator statuses beyond these are not used yet).
const (
	StatusActive      Status = "active"
	StatusCompleted   Status = "completed"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
)

// Finished reports whether no step may follow.
func (s Status) Finished() bool { return s == StatusCompleted || s == StatusFailed }

// Errors of the store.
var (
	ErrNotFound = errors.New("tasks: not found")
	// ErrConflict means another request changed the task first (a concurrent step).
	ErrConflict = errors.New("tasks: concurrent update")
	// ErrIdempotencyRace means the same key is being written by a concurrent request.
	ErrIdempotencyRace = errors.New("tasks: idempotency key in use by a concurrent request")
)

// Task is a multi-step workflow of one tenant's user.
type Task struct {
	ID        string
	TenantID  string
	UserID    string
	SessionID string
	URL       string
	Query     string
	Status    Status
	// StepCount is the number of stored steps; the next step's index is StepCount.
	StepCount int
	// FailureReason says why a task failed when the server failed it (e.g. too many steps).
	FailureReason string
	// Result is the task's answer, given with finish("…").
	Result string
	// Memory is what the next step needs of the task's past.
	Memory    Memory
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ActionError is the extension's report of why its last action failed.
type ActionError struct {
	Message   string `json:"message,omitempty"`
	Code      string `json:"code,omitempty"`
	Action    string `json:"action,omitempty"`
	ElementID *int   `json:"elementId,omitempty"`
}

// Report is the client's report on the previous step's action, sent with the next request.
type Report struct {
	Status string       `json:"status"`
	Error  *ActionError `json:"error,omitempty"`
	// Results are the outcomes of each action of a batch, in order (lastActionResults).
	Results []ActionResult `json:"results,omitempty"`
}

// ActionResult is the client's outcome of one action of a batch: success, failure, or skipped
// (not run, after a failure or a page change).
type ActionResult struct {
	Action string       `json:"action"`
	Status string       `json:"status"`
	Error  *ActionError `json:"error,omitempty"`
}

// Failed reports whether the client said the action failed.
func (r *Report) Failed() bool { return r != nil && r.Status == "failure" }

// Usage is the LLM's token usage.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
}

// Step is one decided action with what led to it.
type Step struct {
	Index   int
	Thought string
	// Action is the canonical action string sent to the client (the first of a batch).
	Action string
	// Actions are the parts of a batch, in order, as stored (secrets masked); nil for one action.
	Actions []string
	// ModelAction is what the model answered when the server replaced it (e.g. finish → verifySuccess).
	ModelAction string
	// PreviousReport is the client's report on the previous step's action, received with this request.
	PreviousReport *Report
	// UserMessage is the user's message that came with this request, when it differs from the task.
	UserMessage string
	URL         string
	Usage       Usage
	Model       string
	LLMAttempts int
	LLMLatency  time.Duration
	Duration    time.Duration
	CreatedAt   time.Time
}

// IdempotencyRecord is the stored response of a request sent with an Idempotency-Key, or, while
// Pending, the claim of the request still deciding it (which has no response yet).
type IdempotencyRecord struct {
	Key         string
	RequestHash string
	StatusCode  int
	Body        []byte
	Pending     bool
	CreatedAt   time.Time
}

// Log types of debug entries: the engine's record of a stored step, of a failed LLM call, and of a plan change.
const (
	LogStep     = "step"
	LogLLMError = "llm_error"
	// LogPlan is written for each change of a task's plan, with the plan.
	LogPlan = "plan"
)

// LogTypes are every log type a debug entry is written with, the values a logType filter may take.
var LogTypes = []string{LogStep, LogLLMError, LogPlan}

// DebugFilter narrows a listing of debug entries: one task's, one log type's, those written since a time, at most Limit.
type DebugFilter struct {
	TaskID  string
	LogType string
	Since   time.Time
	Limit   int
}

// DebugEntry is a diagnostic record of a step for the debug endpoints.
type DebugEntry struct {
	ID        string
	TaskID    string
	LogType   string
	Data      map[string]any
	CreatedAt time.Time
}

// Retention says how long task data is kept (SERVER_SIDE_AGENT_ARCH.md §4.15).
type Retention struct {
	// Finished applies to completed and failed tasks and their steps.
	Finished time.Duration
	// Interrupted applies to interrupted tasks.
	Interrupted time.Duration
	// Active is the provisional lifetime of a task still running, renewed on each step; the
	// cleanup job interrupts idle tasks long before it passes.
	Active time.Duration
	Debug  time.Duration
	// Records applies to verification and correction records from when they are written; the
	// cleanup deletes them with their task if it goes first.
	Records     time.Duration
	Idempotency time.Duration
}

// DefaultRetention is the spec's retention.
var DefaultRetention = Retention{
	Finished:    90 * 24 * time.Hour,
	Interrupted: 30 * 24 * time.Hour,
	Active:      90 * 24 * time.Hour,
	Debug:       7 * 24 * time.Hour,
	Records:     90 * 24 * time.Hour,
	Idempotency: 24 * time.Hour,
}

// For returns the lifetime of a task in the status.
func (r Retention) For(s Status) time.Duration {
	switch s {
	case StatusCompleted, StatusFailed:
		return r.Finished
	case StatusInterrupted:
		return r.Interrupted
	}
	return r.Active
}
