// Package runs is the run engine of the thin-client agent (PROXY_SERVER_API.md,
// PROXY_SERVER_ARCHITECTURE.md §4): a run is a task the server drives one step at a time. Each
// step asks the LLM for the next action, stops loops, holds risky actions for the user in careful
// mode, and reflects on progress every few steps. The client only executes the tools it is told to.
package runs

import (
	"errors"
	"strconv"
	"time"

	"github.com/screenagent/backend/shared/trust"
	"github.com/screenagent/backend/shared/usertime"
)

// Status is a run's lifecycle state (RunStatus of PROXY_SERVER_API.md).
type Status string

// Run statuses.
const (
	StatusCreated     Status = "created"
	StatusRunning     Status = "running"
	StatusWaitingUser Status = "waiting_user"
	StatusCompleted   Status = "completed"
	StatusError       Status = "error"
	StatusCancelled   Status = "cancelled"
)

// Finished reports whether the run takes no more steps.
func (s Status) Finished() bool {
	return s == StatusCompleted || s == StatusError || s == StatusCancelled
}

// Mode says whether the security gate holds risky actions for the user.
type Mode string

// Run modes.
const (
	// ModeAutonomous acts without asking; the gate's warnings are recorded in the history.
	ModeAutonomous Mode = "autonomous"
	// ModeCareful asks the user before a risky action.
	ModeCareful Mode = "careful"
)

// Tool names the client executes, and the two the server handles itself (tools.go has the table).
const (
	ToolObserve  = "observe"
	ToolNavigate = "navigate"
	ToolClick    = "click"
	ToolType     = "type"
	ToolScroll   = "scroll"
	ToolPress    = "press"
	ToolAskUser  = "ask_user"
	ToolFinish   = "finish"
)

// Errors of the service. Each means the request changed nothing.
var (
	// ErrNotFound: no such run of the user, or it expired. Another user's run, even in the same
	// tenant, is not found: runs belong to the user who started them.
	ErrNotFound = errors.New("runs: run not found")
	// ErrFinished: the run is completed, failed or cancelled (a step, an answer or a cancel).
	ErrFinished = errors.New("runs: run already finished")
	// ErrWaitingUser: a step was asked for while the run waits for an answer.
	ErrWaitingUser = errors.New("runs: run is waiting for the user's answer")
	// ErrNotWaiting: an answer came while no question is pending.
	ErrNotWaiting = errors.New("runs: run is not waiting for an answer")
	// ErrConflict: another request changed the run first.
	ErrConflict = errors.New("runs: concurrent update of the run")
	// ErrIdempotencyMismatch: the Idempotency-Key was used before with another request.
	ErrIdempotencyMismatch = errors.New("runs: idempotency key reused with a different request")
	// ErrIdempotencyRace: the same key is being written by a concurrent request.
	ErrIdempotencyRace = errors.New("runs: idempotency key in use by a concurrent request")
)

// LLMError is a step the model could not decide: the LLM call failed (after the client's own
// retries) or gave no usable reply (after the corrective retry). The run is unchanged, so the
// client may retry the step.
type LLMError struct {
	// Message says why, for the client; it never carries the provider's text.
	Message string
	// Err is the failed call's error, nil when replies came but none could be used.
	Err error
}

func (e *LLMError) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *LLMError) Unwrap() error { return e.Err }

// Tool is one tool call with its arguments; only the arguments of its tool are set.
type Tool struct {
	Name string
	ID   string
	URL  string
	Text string
	// Secret names a secret the client holds, typed instead of Text: the server never sees it.
	Secret string
	Submit bool
	DeltaY float64
	Key    string
}

// Result is the client's report on the last tool it executed (ToolResult; data is not kept:
// the next snapshot shows the page).
type Result struct {
	Success bool
	Message string
	Error   string
	// Skipped: a call of a batch the client did not run (after a failure or a page change).
	Skipped bool
	// Parts are the results of each call of a batch, in order (lastActionResults).
	Parts []Result
}

// Observation is the result as the history shows it.
func (r Result) Observation() string {
	switch {
	case r.Message != "" && (r.Success || r.Error == ""):
		return r.Message
	case !r.Success && r.Error != "":
		return "Failed: " + r.Error
	case r.Success:
		return "Success"
	}
	return "Failed"
}

// UserAnswer is the user's reply to a question, recorded on the step it led to (or, when it
// declined, on the run it cancelled).
type UserAnswer struct {
	Approved bool
	Text     string
	// UserID is who answered.
	UserID string
}

// Usage is the LLM's token usage of a step.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Entry is one step of a run's history: the action the client was told to take.
type Entry struct {
	StepNumber int
	// Action is what the client was told: a tool name, ask_user or finish.
	Action string
	// Tool is the call to execute; for a step the security gate held, the call awaiting approval.
	Tool *Tool
	// Tools are the calls of a batch, in order (for a held batch, up to the held call); nil for one.
	Tools    []Tool
	Question string
	// Answer is the model's final answer (Action finish).
	Answer  string
	Thought string
	// Warning is the security gate's finding: the reason for the question in careful mode, a
	// note of what was allowed in autonomous mode.
	Warning string
	// PreviousResult is the result of the previous step's action, which arrived with this step's
	// request (or the user's answer, for the step after a question).
	PreviousResult *Result
	UserAnswer     *UserAnswer
	// URL is the page the step was decided on, PageHash its fingerprint (see fingerprint).
	URL         string
	PageHash    string
	Model       string
	Usage       Usage
	LLMAttempts int
	LLMLatency  time.Duration
	CreatedAt   time.Time
}

// signature identifies the step's action with all its arguments, on the page it was taken on.
func (e Entry) signature() string {
	if len(e.Tools) > 1 {
		return joinCalls(e.Tools, Tool.String) + " @" + e.PageHash
	}
	if e.Tool != nil {
		return e.Tool.String() + " @" + e.PageHash
	}
	return e.Action + " " + strconv.Quote(e.Question) + " @" + e.PageHash
}

// targetKey identifies the step's action by tool and target only, on the page it was taken on.
func (e Entry) targetKey() string {
	if len(e.Tools) > 1 {
		return joinCalls(e.Tools, func(t Tool) string { return t.Name + " " + t.target() }) + " @" + e.PageHash
	}
	if e.Tool != nil {
		return e.Tool.Name + " " + e.Tool.target() + " @" + e.PageHash
	}
	return e.Action + " @" + e.PageHash
}

// toolName is the tool the step used (the held one for a gated step).
func (e Entry) toolName() string {
	if e.Tool != nil {
		return e.Tool.Name
	}
	return e.Action
}

// Run is a run's header: everything but the history.
type Run struct {
	ID          string
	TenantID    string
	UserID      string
	Task        string
	Mode        Mode
	Status      Status
	CurrentStep int
	MaxSteps    int
	// PendingQuestion is the question awaiting an answer (status waiting_user).
	PendingQuestion string
	// PendingTool is the call the security gate holds until the user approves it.
	PendingTool *Tool
	// PendingConfirmation is the id of the held action (PendingTool): only an answer that names it
	// approves it.
	PendingConfirmation string
	// PendingTools are the calls of a held batch up to the held one, run on approval.
	PendingTools []Tool
	// Batch: the client declared actionBatch at start and runs tool_calls batches.
	Batch           bool
	CurrentSnapshot *Snapshot
	Reflections     []Reflection
	// Timezone and Locale are the user's, as the run started ("" when not given).
	Timezone string
	Locale   string
	// LastResult is the result of the last step's action when it arrived with a request that
	// ended the run without a new step (so the history still shows it).
	LastResult *Result
	// LastAnswer is the answer that declined the pending question and so cancelled the run.
	LastAnswer *UserAnswer
	// SecretNames are the secrets the client holds (the latest request that named them).
	SecretNames []trust.NamedSecret
	// Secrets remembers the values typed into secret fields, as keyed hashes, to redact echoes.
	Secrets trust.Secrets
	// ApprovedSecretType is a held type into a secret field the user approved: its value was not
	// kept, so the model types it again, and that call is not held a second time.
	ApprovedSecretType *Tool
	// Result is the final answer of a completed run; Error says why a run stopped or was cancelled.
	Result string
	Error  string
	// CacheTrail is the run's trail for the action cache (package actioncache), opaque here.
	CacheTrail []byte
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Retention says how long runs are kept.
type Retention struct {
	// Idle is how long an unfinished run lives without a change; each change renews it.
	Idle time.Duration
	// Finished is how long a completed, failed or cancelled run is kept.
	Finished time.Duration
	// Idempotency is how long a stored response answers a retried request.
	Idempotency time.Duration
}

// DefaultRetention: a run idle for an hour is gone (as the in-memory original's cleanup did);
// finished runs stay 90 days like finished tasks.
var DefaultRetention = Retention{Idle: time.Hour, Finished: 90 * 24 * time.Hour, Idempotency: 24 * time.Hour}

// ExpiresAt is when a run in the status, last changed at updated, expires.
func (r Retention) ExpiresAt(s Status, updated time.Time) time.Time {
	if s.Finished() {
		return updated.Add(r.Finished)
	}
	return updated.Add(r.Idle)
}

// EntryLifetime is how long a history entry is kept from its write. Entries are written once
// and read only through their header, so it must outlive any header that can show it: a run
// with maxSteps steps changes at most maxSteps+2 times (each step, then a stop or a cancel), each
// change within Idle of the last, and is then kept Finished.
func (r Retention) EntryLifetime(maxSteps int) time.Duration {
	return r.Finished + time.Duration(maxSteps+2)*r.Idle
}

// DefaultMaxSteps bounds a run (PROXY_SERVER_API.md).
const DefaultMaxSteps = 150

// clock is the user's clock for the prompt; a stored zone that no longer loads is unknown.
func (r Run) clock() usertime.Clock {
	c, err := usertime.Parse(r.Timezone, r.Locale)
	if err != nil {
		return usertime.Clock{}
	}
	return c
}
