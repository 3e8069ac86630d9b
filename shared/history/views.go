package history

import (
	"strings"
	"time"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/chat"
)

// isoTime is JavaScript's Date.toISOString format, the spec's ISO 8601 timestamps.
const isoTime = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(isoTime)
}

// StatusArchived is the status an archived session shows (§4.8.2, §4.8.3); the session keeps its
// own lifecycle status, shown as lifecycleStatus.
const StatusArchived = "archived"

// SessionView is a session as §4.8.2 and §4.8.4 show it.
type SessionView struct {
	SessionID string `json:"sessionId"`
	// TaskID is the task the session follows now.
	TaskID string `json:"taskId,omitempty"`
	URL    string `json:"url"`
	Domain string `json:"domain"`
	Title  string `json:"title"`
	// Status is "archived" for an archived session, else its lifecycle status.
	Status          string      `json:"status"`
	LifecycleStatus chat.Status `json:"lifecycleStatus"`
	CreatedAt       string      `json:"createdAt"`
	UpdatedAt       string      `json:"updatedAt"`
	ArchivedAt      string      `json:"archivedAt,omitempty"`
	MessageCount    int         `json:"messageCount"`
	// Metadata holds initialQuery (the first query, up to 1000 characters).
	Metadata map[string]string `json:"metadata,omitempty"`
}

// NewSessionView renders a session.
func NewSessionView(s chat.Session) SessionView {
	v := SessionView{
		SessionID: s.ID, TaskID: s.TaskID, URL: s.URL, Domain: s.Domain, Title: s.Title,
		Status: string(s.Status), LifecycleStatus: s.Status,
		CreatedAt: formatTime(s.CreatedAt), UpdatedAt: formatTime(s.UpdatedAt),
		MessageCount: s.MessageCount, Metadata: s.Metadata,
	}
	if s.Archived {
		v.Status, v.ArchivedAt = StatusArchived, formatTime(s.ArchivedAt)
	}
	return v
}

// MessageView is a message as §4.8.1 shows it: the page's summary, never the page or its snapshot.
type MessageView struct {
	MessageID      string             `json:"messageId"`
	Role           chat.Role          `json:"role"`
	Content        string             `json:"content"`
	ActionPayload  map[string]any     `json:"actionPayload,omitempty"`
	ActionString   string             `json:"actionString,omitempty"`
	Status         chat.MessageStatus `json:"status,omitempty"`
	Error          *ErrorView         `json:"error,omitempty"`
	SequenceNumber int                `json:"sequenceNumber"`
	Timestamp      string             `json:"timestamp"`
	DOMSummary     string             `json:"domSummary,omitempty"`
	Metadata       *MessageMetadata   `json:"metadata,omitempty"`
}

// ErrorView is what the extension reported about a failed action.
type ErrorView struct {
	Message   string `json:"message,omitempty"`
	Code      string `json:"code,omitempty"`
	Action    string `json:"action,omitempty"`
	ElementID *int   `json:"elementId,omitempty"`
}

// MessageMetadata describes the LLM call of an assistant message, with §4.8.1's key names.
type MessageMetadata struct {
	TokensUsed *TokensView `json:"tokens_used,omitempty"`
	// LatencyMs is the LLM's latency in milliseconds.
	LatencyMs int64  `json:"latency,omitempty"`
	LLMModel  string `json:"llm_model,omitempty"`
}

// TokensView is an LLM call's token usage.
type TokensView struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
}

// NewMessageView renders a message.
func NewMessageView(m chat.Message) MessageView {
	v := MessageView{
		MessageID: m.ID, Role: m.Role, Content: m.Content, ActionPayload: actionPayload(m.ActionString),
		ActionString: m.ActionString, Status: m.Status, SequenceNumber: m.SequenceNumber,
		Timestamp: formatTime(m.Timestamp), DOMSummary: m.DOMSummary,
	}
	if e := m.Error; e != nil {
		v.Error = &ErrorView{Message: e.Message, Code: e.Code, Action: e.Action, ElementID: e.ElementID}
	}
	if m.Usage != nil || m.Latency > 0 || m.Model != "" {
		md := &MessageMetadata{LatencyMs: m.Latency.Milliseconds(), LLMModel: m.Model}
		if u := m.Usage; u != nil {
			md.TokensUsed = &TokensView{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
		}
		v.Metadata = md
	}
	return v
}

// actionPayload is §4.8.1's structured form of an action string (type, elementId, text), or nil
// when there is no action or it does not parse.
func actionPayload(action string) map[string]any {
	if action == "" {
		return nil
	}
	if parts := strings.Split(action, "\n"); len(parts) > 1 {
		// A batch: one step with its parts.
		out := make([]map[string]any, 0, len(parts))
		for _, p := range parts {
			out = append(out, actionPayload(p))
		}
		return map[string]any{"type": "batch", "actions": out}
	}
	a, err := actions.Parse(action)
	if err != nil {
		return nil
	}
	p := map[string]any{"type": a.Name()}
	if id, ok := a.ElementID(); ok {
		p["elementId"] = id
	}
	if text, ok := a.Text(); ok {
		p["text"] = text
	}
	return p
}
