// Package realtime pushes a task's and a run's progress to WebSocket subscribers through API
// Gateway's WebSocket API: single-use tickets for $connect, subscriptions checked like the HTTP
// routes, and best-effort, bounded publishing from the functions that change state.
package realtime

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Topic is what a connection subscribes to: one chat session's events or one run's.
type Topic struct {
	Kind string // KindSession or KindRun
	ID   string
}

// Kinds of topic.
const (
	KindSession = "session"
	KindRun     = "run"
)

// Session is the topic of a chat session (the interact API's tasks).
func Session(id string) Topic { return Topic{Kind: KindSession, ID: id} }

// Run is the topic of a run of the run API.
func Run(id string) Topic { return Topic{Kind: KindRun, ID: id} }

// Key is the topic as stores name it.
func (t Topic) Key() string { return t.Kind + "#" + t.ID }

// Event is a message to a topic's subscribers.
type Event interface {
	// EventType is the message's "type".
	EventType() string
	// EventTopic is the topic whose subscribers receive it.
	EventTopic() Topic
}

// Step statuses of step_progress (SERVER_QA_ROADMAP.md §8.1).
const (
	StepPending   = "pending"
	StepExecuting = "executing"
	StepCompleted = "completed"
	StepFailed    = "failed"
)

// StepProgress is step_progress: a plan step (or, without a plan, the task's step) changed state.
type StepProgress struct {
	SessionID       string `json:"sessionId"`
	TaskID          string `json:"taskId"`
	CurrentStep     int    `json:"currentStep"`
	TotalSteps      int    `json:"totalSteps"`
	StepDescription string `json:"stepDescription"`
	StepStatus      string `json:"stepStatus"`
}

// VariableExtracted is variable_extracted: the task learned a value (§8.2). Secrets are never sent.
type VariableExtracted struct {
	SessionID string `json:"sessionId"`
	TaskID    string `json:"taskId"`
	Key       string `json:"key"`
	Value     string `json:"value"`
}

// TaskStatus is task_status: the task completed, failed or waits for the user.
type TaskStatus struct {
	SessionID    string `json:"sessionId"`
	TaskID       string `json:"taskId"`
	Status       string `json:"status"`
	UserQuestion string `json:"userQuestion,omitempty"`
}

// RunStep is run_step: a run committed a step.
type RunStep struct {
	RunID  string `json:"runId"`
	Step   int    `json:"step"`
	Action string `json:"action"`
	Tool   string `json:"tool,omitempty"`
	Status string `json:"status"`
}

func (StepProgress) EventType() string      { return "step_progress" }
func (e StepProgress) EventTopic() Topic    { return Session(e.SessionID) }
func (VariableExtracted) EventType() string { return "variable_extracted" }
func (e VariableExtracted) EventTopic() Topic {
	return Session(e.SessionID)
}
func (TaskStatus) EventType() string   { return "task_status" }
func (e TaskStatus) EventTopic() Topic { return Session(e.SessionID) }
func (RunStep) EventType() string      { return "run_step" }
func (e RunStep) EventTopic() Topic    { return Run(e.RunID) }

// MaxMessage bounds a message: API Gateway refuses WebSocket frames of 32 KB and more.
const MaxMessage = 32<<10 - 1

// maxText bounds each free-text field, so that an event stays far below MaxMessage.
const maxText = 2000

// Encode renders an event as it is sent: "type" first, then its "id" on the topic, then its fields.
func Encode(id int64, e Event) ([]byte, error) {
	fields, err := json.Marshal(clip(e))
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", e.EventType(), err)
	}
	head, _ := json.Marshal(e.EventType())
	out := make([]byte, 0, len(fields)+len(head)+32)
	out = append(out, `{"type":`...)
	out = append(out, head...)
	out = append(out, `,"id":`...)
	out = strconv.AppendInt(out, id, 10)
	if len(fields) > 2 {
		out = append(out, ',')
	}
	out = append(out, fields[1:]...)
	if len(out) > MaxMessage {
		return nil, fmt.Errorf("encode %s: %d bytes, over API Gateway's frame limit", e.EventType(), len(out))
	}
	return out, nil
}

// clip shortens the free-text fields an event may carry.
func clip(e Event) Event {
	switch x := e.(type) {
	case StepProgress:
		x.StepDescription = shorten(x.StepDescription)
		return x
	case VariableExtracted:
		x.Value = shorten(x.Value)
		return x
	case TaskStatus:
		x.UserQuestion = shorten(x.UserQuestion)
		return x
	}
	return e
}

func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxText {
		return s
	}
	r := []rune(s)
	return string(r[:maxText-1]) + "…"
}

// Control messages: answers to a connection's own requests.

// Subscribed answers subscribe; LastID is the topic's last event id (0 before any).
type Subscribed struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId,omitempty"`
	RunID     string `json:"runId,omitempty"`
	LastID    int64  `json:"lastId"`
}

// Unsubscribed answers unsubscribe.
type Unsubscribed struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId,omitempty"`
	RunID     string `json:"runId,omitempty"`
}

// ErrorMessage answers a request that was refused: a malformed one, an unknown action, or a topic
// the connection's user may not watch.
type ErrorMessage struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func topicFields(t Topic) (sessionID, runID string) {
	if t.Kind == KindRun {
		return "", t.ID
	}
	return t.ID, ""
}
