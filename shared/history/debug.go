package history

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/tasks"
)

// Limits of the debug log listing.
const (
	DefaultDebugLimit = 50
	MaxDebugLimit     = 200
)

// DebugQuery is a validated GET /api/debug/logs.
type DebugQuery struct {
	TaskID  string
	LogType string
	// Since keeps entries written at or after it.
	Since time.Time
	Limit int
}

// DebugEntryView is a debug entry.
type DebugEntryView struct {
	DebugID   string         `json:"debugId"`
	TaskID    string         `json:"taskId"`
	LogType   string         `json:"logType"`
	Data      map[string]any `json:"data"`
	CreatedAt string         `json:"createdAt"`
}

func newDebugEntryView(e tasks.DebugEntry) DebugEntryView {
	data := e.Data
	if data == nil {
		data = map[string]any{}
	}
	return DebugEntryView{DebugID: e.ID, TaskID: e.TaskID, LogType: e.LogType, Data: data, CreatedAt: formatTime(e.CreatedAt)}
}

// DebugLogs is the data of GET /api/debug/logs.
type DebugLogs struct {
	Logs    []DebugEntryView `json:"logs"`
	Count   int              `json:"count"`
	Limit   int              `json:"limit"`
	HasMore bool             `json:"hasMore"`
}

// DebugLister lists the debug entries of a user's tasks (the tasks store).
type DebugLister interface {
	ListUserDebug(ctx context.Context, tenantID, userID string, f tasks.DebugFilter) ([]tasks.DebugEntry, error)
}

// ListDebug returns the debug entries of the user's tasks, newest first; with a task, that task's
// only, and ErrTaskNotFound unless it is the user's. Debug data is scoped like the conversations
// it describes: another member of an organization does not see it.
func ListDebug(ctx context.Context, store DebugLister, id accounts.Identity, q DebugQuery) (DebugLogs, error) {
	entries, err := store.ListUserDebug(ctx, id.TenantID, id.UserID, tasks.DebugFilter{
		TaskID: q.TaskID, LogType: q.LogType, Since: q.Since, Limit: q.Limit + 1,
	})
	if errors.Is(err, tasks.ErrNotFound) {
		return DebugLogs{}, ErrTaskNotFound
	}
	if err != nil {
		return DebugLogs{}, err
	}
	more := len(entries) > q.Limit
	if more {
		entries = entries[:q.Limit]
	}
	out := DebugLogs{Logs: make([]DebugEntryView, 0, len(entries)), Count: len(entries), Limit: q.Limit, HasMore: more}
	for _, e := range entries {
		out.Logs = append(out.Logs, newDebugEntryView(e))
	}
	return out, nil
}

// TaskRecords reads a task and what it recorded (the tasks store).
type TaskRecords interface {
	GetTask(ctx context.Context, tenantID, taskID string) (tasks.Task, error)
	Steps(ctx context.Context, tenantID, taskID string) ([]tasks.Step, error)
	ListDebug(ctx context.Context, tenantID string, f tasks.DebugFilter) ([]tasks.DebugEntry, error)
	Verifications(ctx context.Context, tenantID, taskID string) ([]tasks.Verification, error)
	Corrections(ctx context.Context, tenantID, taskID string) ([]tasks.Correction, error)
}

// ExportVersion is the version of the export document's shape.
const ExportVersion = 1

// MaxExportDebugEntries bounds the debug entries of one export. A task has at most 50 steps, so
// only a task with very many failed LLM calls reaches it; the export then says it is truncated.
const MaxExportDebugEntries = 1000

// TaskExport is the data of GET /api/debug/session/{taskId}/export: everything known about a
// task, in time order. Pages are referenced by snapshot ID and summary, never included.
type TaskExport struct {
	ExportVersion int              `json:"exportVersion"`
	ExportedAt    string           `json:"exportedAt"`
	Task          TaskView         `json:"task"`
	Steps         []StepView       `json:"steps"`
	Session       *SessionView     `json:"session"`
	Messages      []ExportedMsg    `json:"messages"`
	Snapshots     []SnapshotRef    `json:"snapshots"`
	DebugEntries  []DebugEntryView `json:"debugEntries"`
	// DebugEntriesTruncated says that only the newest MaxExportDebugEntries entries are included.
	DebugEntriesTruncated bool          `json:"debugEntriesTruncated"`
	Metrics               ExportMetrics `json:"metrics"`
	// VerificationRecords and CorrectionRecords (§4.9) are the checks of the task's actions and
	// what the agent did about the failed ones, oldest first, while their retention lasts.
	VerificationRecords []tasks.Verification `json:"verificationRecords"`
	CorrectionRecords   []tasks.Correction   `json:"correctionRecords"`
}

// TaskView is a task's header.
type TaskView struct {
	TaskID        string `json:"taskId"`
	SessionID     string `json:"sessionId,omitempty"`
	URL           string `json:"url"`
	Query         string `json:"query"`
	Status        string `json:"status"`
	StepCount     int    `json:"stepCount"`
	FailureReason string `json:"failureReason,omitempty"`
	CreatedAt     string `json:"createdAt"`
	UpdatedAt     string `json:"updatedAt"`
}

// StepView is one step of a task with what led to it.
type StepView struct {
	StepIndex int    `json:"stepIndex"`
	Thought   string `json:"thought"`
	Action    string `json:"action"`
	// Actions are the parts of a batch, in order; the step is one step with its parts.
	Actions []string `json:"actions,omitempty"`
	// ModelAction is what the model answered when the server replaced it.
	ModelAction    string        `json:"modelAction,omitempty"`
	PreviousReport *tasks.Report `json:"previousReport,omitempty"`
	URL            string        `json:"url"`
	Usage          TokensView    `json:"usage"`
	Model          string        `json:"model,omitempty"`
	LLMAttempts    int           `json:"llmAttempts"`
	LLMLatencyMs   int64         `json:"llmLatencyMs"`
	DurationMs     int64         `json:"durationMs"`
	CreatedAt      string        `json:"createdAt"`
}

// ExportedMsg is a message with its task and a reference to its page's snapshot.
type ExportedMsg struct {
	MessageView
	TaskID          string `json:"taskId"`
	SnapshotID      string `json:"snapshotId,omitempty"`
	DOMLength       int    `json:"domLength,omitempty"`
	SnapshotOmitted string `json:"snapshotOmitted,omitempty"`
}

// SnapshotRef is a stored page the task's messages reference, by ID: the page itself is not exported.
type SnapshotRef struct {
	SnapshotID      string `json:"snapshotId"`
	DOMLength       int    `json:"domLength"`
	DOMSummary      string `json:"domSummary"`
	SequenceNumbers []int  `json:"sequenceNumbers"`
}

// ExportMetrics are a task's totals.
type ExportMetrics struct {
	StepCount             int   `json:"stepCount"`
	PromptTokens          int   `json:"promptTokens"`
	CompletionTokens      int   `json:"completionTokens"`
	TotalTokens           int   `json:"totalTokens"`
	LLMAttempts           int   `json:"llmAttempts"`
	LLMLatencyMs          int64 `json:"llmLatencyMs"`
	AverageLLMLatencyMs   int64 `json:"averageLlmLatencyMs"`
	StepDurationMs        int64 `json:"stepDurationMs"`
	AverageStepDurationMs int64 `json:"averageStepDurationMs"`
	// TaskDurationMs is from the task's creation to its last update.
	TaskDurationMs int64 `json:"taskDurationMs"`
	// FailedActions counts the actions the extension reported as failed.
	FailedActions int `json:"failedActions"`
	// LLMErrors counts the steps whose LLM call failed (debug entries of type llm_error).
	LLMErrors int `json:"llmErrors"`
	// VerificationFailures counts the actions whose verification failed; Corrections the
	// corrections made (both as far as their records are kept).
	VerificationFailures int `json:"verificationFailures"`
	Corrections          int `json:"corrections"`
	MessageCount         int `json:"messageCount"`
}

// ExportTask gathers everything known about the user's task; a task that is not the user's is
// ErrTaskNotFound. The task's session is read even when archived (an export is an audit); when
// it has expired the export has no session and no messages.
func ExportTask(ctx context.Context, store TaskRecords, msgs MessageReader, id accounts.Identity, taskID string, now time.Time) (TaskExport, error) {
	task, err := store.GetTask(ctx, id.TenantID, taskID)
	if errors.Is(err, tasks.ErrNotFound) || err == nil && task.UserID != id.UserID {
		return TaskExport{}, ErrTaskNotFound
	}
	if err != nil {
		return TaskExport{}, err
	}
	steps, err := store.Steps(ctx, id.TenantID, taskID)
	if err != nil {
		return TaskExport{}, err
	}
	entries, err := store.ListDebug(ctx, id.TenantID, tasks.DebugFilter{TaskID: taskID, Limit: MaxExportDebugEntries + 1})
	if err != nil {
		return TaskExport{}, err
	}
	verifications, err := store.Verifications(ctx, id.TenantID, taskID)
	if err != nil {
		return TaskExport{}, err
	}
	corrections, err := store.Corrections(ctx, id.TenantID, taskID)
	if err != nil {
		return TaskExport{}, err
	}
	out := TaskExport{
		ExportVersion: ExportVersion, ExportedAt: formatTime(now),
		Task: TaskView{
			TaskID: task.ID, SessionID: task.SessionID, URL: task.URL, Query: task.Query, Status: string(task.Status),
			StepCount: task.StepCount, FailureReason: task.FailureReason,
			CreatedAt: formatTime(task.CreatedAt), UpdatedAt: formatTime(task.UpdatedAt),
		},
		Steps: make([]StepView, 0, len(steps)), Messages: []ExportedMsg{}, Snapshots: []SnapshotRef{},
		VerificationRecords: verifications, CorrectionRecords: corrections,
	}
	if task.SessionID != "" {
		if err := out.addSession(ctx, msgs, id, task); err != nil {
			return TaskExport{}, err
		}
	}
	for _, s := range steps {
		out.Steps = append(out.Steps, StepView{
			StepIndex: s.Index, Thought: s.Thought, Action: s.Action, Actions: s.Actions, ModelAction: s.ModelAction,
			PreviousReport: s.PreviousReport, URL: s.URL,
			Usage: TokensView{PromptTokens: s.Usage.PromptTokens, CompletionTokens: s.Usage.CompletionTokens},
			Model: s.Model, LLMAttempts: s.LLMAttempts, LLMLatencyMs: s.LLMLatency.Milliseconds(),
			DurationMs: s.Duration.Milliseconds(), CreatedAt: formatTime(s.CreatedAt),
		})
	}
	if len(entries) > MaxExportDebugEntries {
		entries, out.DebugEntriesTruncated = entries[:MaxExportDebugEntries], true
	}
	// The store lists newest first; the export reads in time order, like the steps.
	slices.Reverse(entries)
	out.DebugEntries = make([]DebugEntryView, 0, len(entries))
	for _, e := range entries {
		out.DebugEntries = append(out.DebugEntries, newDebugEntryView(e))
	}
	if out.VerificationRecords == nil {
		out.VerificationRecords = []tasks.Verification{}
	}
	if out.CorrectionRecords == nil {
		out.CorrectionRecords = []tasks.Correction{}
	}
	out.Metrics = exportMetrics(task, steps, entries, len(out.Messages))
	for _, v := range verifications {
		if v.Verdict == tasks.Unverified {
			out.Metrics.VerificationFailures++
		}
	}
	out.Metrics.Corrections = len(corrections)
	return out, nil
}

// addSession adds the task's session and the messages written for the task (a session continued
// by a later task holds that task's messages too).
func (x *TaskExport) addSession(ctx context.Context, msgs MessageReader, id accounts.Identity, task tasks.Task) error {
	page, err := msgs.ListMessages(ctx, id.TenantID, task.SessionID, 0, time.Time{})
	if errors.Is(err, chat.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	view := NewSessionView(page.Session)
	x.Session = &view
	refs := map[string]int{}
	for _, m := range page.Messages {
		if m.TaskID != task.ID {
			continue
		}
		x.Messages = append(x.Messages, ExportedMsg{
			MessageView: NewMessageView(m), TaskID: m.TaskID,
			SnapshotID: m.SnapshotID, DOMLength: m.DOMLength, SnapshotOmitted: m.SnapshotOmitted,
		})
		if m.SnapshotID == "" {
			continue
		}
		i, seen := refs[m.SnapshotID]
		if !seen {
			i = len(x.Snapshots)
			refs[m.SnapshotID] = i
			x.Snapshots = append(x.Snapshots, SnapshotRef{SnapshotID: m.SnapshotID, DOMLength: m.DOMLength, DOMSummary: m.DOMSummary})
		}
		x.Snapshots[i].SequenceNumbers = append(x.Snapshots[i].SequenceNumbers, m.SequenceNumber)
	}
	return nil
}

func exportMetrics(task tasks.Task, steps []tasks.Step, entries []tasks.DebugEntry, messages int) ExportMetrics {
	m := ExportMetrics{StepCount: len(steps), MessageCount: messages}
	for _, s := range steps {
		m.PromptTokens += s.Usage.PromptTokens
		m.CompletionTokens += s.Usage.CompletionTokens
		m.LLMAttempts += s.LLMAttempts
		m.LLMLatencyMs += s.LLMLatency.Milliseconds()
		m.StepDurationMs += s.Duration.Milliseconds()
		if s.PreviousReport.Failed() {
			m.FailedActions++
		}
	}
	m.TotalTokens = m.PromptTokens + m.CompletionTokens
	if n := int64(len(steps)); n > 0 {
		m.AverageLLMLatencyMs, m.AverageStepDurationMs = m.LLMLatencyMs/n, m.StepDurationMs/n
	}
	if !task.CreatedAt.IsZero() && task.UpdatedAt.After(task.CreatedAt) {
		m.TaskDurationMs = task.UpdatedAt.Sub(task.CreatedAt).Milliseconds()
	}
	for _, e := range entries {
		if e.LogType == tasks.LogLLMError {
			m.LLMErrors++
		}
	}
	return m
}
