// Package chat is the conversation record of the agent: a session per conversation thread, the
// messages of its steps in gap-free sequence, and compressed snapshots of the pages they were
// written on. The interact engine writes it; the session routes read it.
package chat

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Sentinel errors of the chat store, mapped to the contract at the HTTP edge.
var (
	// ErrNotFound: no such session in the tenant, or it has expired.
	ErrNotFound = errors.New("chat: not found")
	// ErrForbidden: the session is the tenant's but another user's.
	ErrForbidden = errors.New("chat: session belongs to another user")
	// ErrConcurrentAppend: the session changed between being read and being written (another
	// step appended, or its status or archive flag changed); nothing of the losing write was stored.
	ErrConcurrentAppend = errors.New("chat: session changed concurrently")
)

// Status is a session's lifecycle, which follows its task's. Archiving is separate (Session.Archived).
type Status string

// Session statuses.
const (
	StatusActive      Status = "active"
	StatusCompleted   Status = "completed"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
)

// Statuses lists every status, in a fixed order.
var Statuses = []Status{StatusActive, StatusCompleted, StatusFailed, StatusInterrupted}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusActive, StatusCompleted, StatusFailed, StatusInterrupted:
		return true
	}
	return false
}

// Ended reports whether the session's task is over.
func (s Status) Ended() bool { return s.Valid() && s != StatusActive }

// Session is one conversation thread of a user in a tenant.
type Session struct {
	ID       string
	TenantID string
	UserID   string
	// TaskID is the task the session follows now (a session may be continued by a later task).
	TaskID string
	// URL is the page the session started on; Domain is its host name.
	URL    string
	Domain string
	// Title is the first query, shortened (TitleMaxRunes).
	Title  string
	Status Status
	// Archived hides the session from the extension; it keeps its Status.
	Archived     bool
	ArchivedAt   time.Time
	MessageCount int
	CreatedAt    time.Time
	// UpdatedAt is the time of the last message; lists sort by it.
	UpdatedAt time.Time
	Metadata  map[string]string
	// ExpiresAt is set by the store from its Retention on every write.
	ExpiresAt time.Time
}

// Lengths kept of a session's first query.
const (
	TitleMaxRunes        = 100
	InitialQueryMaxRunes = 1000
)

// NewSession returns a new active session (with a fresh ID) of a user's task, started on pageURL
// with query. The store sets its expiry when it is written.
func NewSession(tenantID, userID, taskID, pageURL, query string, now time.Time) (Session, error) {
	if tenantID == "" || userID == "" {
		return Session{}, errors.New("new session: tenant and user are required")
	}
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return Session{}, fmt.Errorf("new session: url %q has no host", pageURL)
	}
	now = now.UTC()
	return Session{
		ID:        uuid.NewString(),
		TenantID:  tenantID,
		UserID:    userID,
		TaskID:    taskID,
		URL:       pageURL,
		Domain:    strings.ToLower(u.Hostname()),
		Title:     Shorten(query, TitleMaxRunes),
		Status:    StatusActive,
		CreatedAt: now,
		UpdatedAt: now,
		Metadata:  map[string]string{"initialQuery": Shorten(query, InitialQueryMaxRunes)},
	}, nil
}

// Shorten collapses runs of white space (and control characters) into single spaces, trims, and
// cuts the result to at most n runes, ending a cut text with "…". Invalid UTF-8 is dropped.
func Shorten(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if utf8.RuneCountInString(out) <= n {
		return out
	}
	if n <= 0 {
		return ""
	}
	runes := []rune(out)[:n-1]
	return strings.TrimRight(string(runes), " ") + "…"
}

// Role is who a message is from.
type Role string

// Message roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
)

// MessageStatus is the outcome of the action a message is about.
type MessageStatus string

// Message statuses.
const (
	MessageSuccess MessageStatus = "success"
	MessageFailure MessageStatus = "failure"
	MessagePending MessageStatus = "pending"
)

// ActionError is what the extension reported about a failed action.
type ActionError struct {
	Message   string
	Code      string
	Action    string
	ElementID *int
}

// Usage is the LLM's token count for an assistant message.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// OmittedTooLarge is Message.SnapshotOmitted when the page was too large to store even compressed.
const OmittedTooLarge = "too_large"

// Message is one entry of a session. The store assigns ID (when empty), SessionID, TaskID,
// SequenceNumber, Timestamp (when zero) and ExpiresAt when it writes the message.
type Message struct {
	ID        string
	SessionID string
	// TaskID is the task the message was written for, so a task's messages can be told apart in a
	// session that several tasks continued.
	TaskID       string
	Role         Role
	Content      string
	ActionString string
	Status       MessageStatus
	Error        *ActionError
	// SequenceNumber counts the session's messages from 1 without gaps.
	SequenceNumber int
	Timestamp      time.Time
	// SnapshotID names the stored page (Snapshot.ID); DOMSummary and DOMLength describe it and are
	// kept even when no snapshot is (small pages, or SnapshotOmitted).
	SnapshotID      string
	DOMSummary      string
	DOMLength       int
	SnapshotOmitted string
	// Usage, Latency and Model describe the LLM call of an assistant message.
	Usage     *Usage
	Latency   time.Duration
	Model     string
	ExpiresAt time.Time
}

// AttachDOM records on m the page it was written on.
func (m *Message) AttachDOM(d DOMCapture) {
	m.DOMSummary, m.DOMLength, m.SnapshotID, m.SnapshotOmitted = d.Summary, d.Length, d.SnapshotID, d.Omitted
}

// Validate checks what the store relies on.
func (m Message) Validate() error {
	switch m.Role {
	case RoleUser, RoleAssistant, RoleSystem:
	default:
		return fmt.Errorf("message role %q is not user, assistant or system", m.Role)
	}
	switch m.Status {
	case "", MessageSuccess, MessageFailure, MessagePending:
	default:
		return fmt.Errorf("message status %q is not success, failure or pending", m.Status)
	}
	if n := utf8.RuneCountInString(m.DOMSummary); n > SummaryMaxRunes {
		return fmt.Errorf("message domSummary has %d characters, over %d", n, SummaryMaxRunes)
	}
	if m.SnapshotID != "" && !ValidSnapshotID(m.SnapshotID) {
		return fmt.Errorf("message snapshotId %q is not a hex SHA-256", m.SnapshotID)
	}
	return nil
}

// ArchivedFilter says how a listing treats archived sessions.
type ArchivedFilter int

// Archived filters; the zero value leaves archived sessions out.
const (
	ExcludeArchived ArchivedFilter = iota
	IncludeArchived
	OnlyArchived
)

// ListFilter selects a user's sessions. An empty Status matches every status.
type ListFilter struct {
	Status   Status
	Archived ArchivedFilter
}

// SessionPage is one page of a listing, newest update first.
type SessionPage struct {
	Sessions []Session
	// Total counts every session matching the filter; HasMore says whether any follow the page.
	Total   int
	HasMore bool
}

// MessagePage is messages of a session, oldest first, with the session they belong to so the
// caller can apply its own rules (owner, archived).
type MessagePage struct {
	Session  Session
	Messages []Message
	// Total is the session's message count.
	Total int
}
