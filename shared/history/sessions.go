// Package history is the read side of what the agent recorded, for the session and debug routes:
// a user's chat sessions and their messages (§4.8.1–§4.8.4), archiving, the debug log and the
// export of a task. It applies the rules the stores leave to their callers — who may see a
// session (its owner, and not once archived), the listing's default filter — validates the
// routes' query parameters, and renders the contract's views.
package history

import (
	"context"
	"errors"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/tasks"
)

// Errors of the operations; HTTPError maps them to the contract.
var (
	// ErrSessionNotFound: no such session of the user (another tenant's or another user's is none),
	// or it is archived where archived sessions are hidden.
	ErrSessionNotFound = errors.New("history: session not found")
	// ErrTaskNotFound: no such task of the user.
	ErrTaskNotFound = errors.New("history: task not found")
)

// HTTPError maps the errors of this package's operations (and of the stores under them) to the
// contract: 404 SESSION_NOT_FOUND and TASK_NOT_FOUND, 403 FORBIDDEN for archiving another user's
// session (§4.8.3), 409 RESOURCE_CONFLICT when a session keeps changing under an archive. Others
// pass through to httpapi's generic mapping.
func HTTPError(err error) error {
	switch {
	case errors.Is(err, ErrSessionNotFound), errors.Is(err, chat.ErrNotFound):
		return httpapi.NewError(httpapi.CodeSessionNotFound, "Session not found.")
	case errors.Is(err, ErrTaskNotFound), errors.Is(err, tasks.ErrNotFound):
		return httpapi.NewError(httpapi.CodeTaskNotFound, "Task not found.")
	case errors.Is(err, chat.ErrForbidden):
		return httpapi.NewError(httpapi.CodeForbidden, "Only the session's owner may archive it.")
	case errors.Is(err, chat.ErrConcurrentAppend):
		return httpapi.Wrap(httpapi.CodeResourceConflict, "The session is being updated; retry.", err)
	}
	return err
}

// Limits of the session listing (§4.8.2).
const (
	DefaultSessionLimit = 20
	MaxSessionLimit     = 100
	// MaxOffset bounds the entries one listing walks: offset pagination reads every entry it skips.
	MaxOffset = 10_000
)

// ListQuery is a validated GET /api/session.
type ListQuery struct {
	// Status is "", a chat.Status, or StatusArchived.
	Status          string
	IncludeArchived bool
	Limit, Offset   int
}

// ListStatuses are the values of the listing's status parameter.
var ListStatuses = append(SessionStatuses(), StatusArchived)

// SessionStatuses are the lifecycle statuses, as strings, in a fixed order.
func SessionStatuses() []string {
	out := make([]string, len(chat.Statuses))
	for i, s := range chat.Statuses {
		out[i] = string(s)
	}
	return out
}

// Filter is the store filter of the query (§4.8.2):
//   - no status: active sessions, and with includeArchived=true every session, archived or not;
//   - status=archived: only archived sessions, whatever their lifecycle status;
//   - another status: sessions of that status, archived ones too with includeArchived=true.
func (q ListQuery) Filter() chat.ListFilter {
	archived := chat.ExcludeArchived
	if q.IncludeArchived {
		archived = chat.IncludeArchived
	}
	switch q.Status {
	case "":
		if q.IncludeArchived {
			return chat.ListFilter{Archived: chat.IncludeArchived}
		}
		return chat.ListFilter{Status: chat.StatusActive}
	case StatusArchived:
		return chat.ListFilter{Archived: chat.OnlyArchived}
	}
	return chat.ListFilter{Status: chat.Status(q.Status), Archived: archived}
}

// SessionList is the data of GET /api/session.
type SessionList struct {
	Sessions   []SessionView `json:"sessions"`
	Pagination Pagination    `json:"pagination"`
}

// Pagination describes a page of a listing.
type Pagination struct {
	Total   int  `json:"total"`
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	HasMore bool `json:"hasMore"`
}

// SessionLister lists a user's sessions (chatdb.Store).
type SessionLister interface {
	ListSessions(ctx context.Context, tenantID, userID string, f chat.ListFilter, limit, offset int) (chat.SessionPage, error)
}

// ListSessions returns a page of the user's sessions, most recently updated first.
func ListSessions(ctx context.Context, store SessionLister, id accounts.Identity, q ListQuery) (SessionList, error) {
	page, err := store.ListSessions(ctx, id.TenantID, id.UserID, q.Filter(), q.Limit, q.Offset)
	if err != nil {
		return SessionList{}, err
	}
	out := SessionList{
		Sessions:   make([]SessionView, 0, len(page.Sessions)),
		Pagination: Pagination{Total: page.Total, Limit: q.Limit, Offset: q.Offset, HasMore: page.HasMore},
	}
	for _, s := range page.Sessions {
		out.Sessions = append(out.Sessions, NewSessionView(s))
	}
	return out, nil
}

// LatestFinder finds a user's latest unarchived session of a status (chatdb.Store).
type LatestFinder interface {
	LatestSession(ctx context.Context, tenantID, userID string, status chat.Status) (chat.Session, error)
}

// LatestSession returns the user's most recently updated unarchived session of the status
// (active when empty), or ErrSessionNotFound (§4.8.4 answers 404, not null).
func LatestSession(ctx context.Context, store LatestFinder, id accounts.Identity, status chat.Status) (SessionView, error) {
	if status == "" {
		status = chat.StatusActive
	}
	s, err := store.LatestSession(ctx, id.TenantID, id.UserID, status)
	if errors.Is(err, chat.ErrNotFound) {
		return SessionView{}, ErrSessionNotFound
	}
	if err != nil {
		return SessionView{}, err
	}
	return NewSessionView(s), nil
}

// Archiver archives a user's session (chatdb.Store).
type Archiver interface {
	Archive(ctx context.Context, tenantID, userID, sessionID string) (chat.Session, error)
}

// ArchiveResult is the data of POST /api/session (§4.8.3).
type ArchiveResult struct {
	SessionID string `json:"sessionId"`
	Status    string `json:"status"`
	Message   string `json:"message"`
}

// ArchiveSession archives the user's session; archiving it again answers the same. Another
// user's session in the tenant is chat.ErrForbidden; an unknown one (another tenant's included)
// chat.ErrNotFound.
func ArchiveSession(ctx context.Context, store Archiver, id accounts.Identity, sessionID string) (ArchiveResult, error) {
	s, err := store.Archive(ctx, id.TenantID, id.UserID, sessionID)
	if err != nil {
		return ArchiveResult{}, err
	}
	return ArchiveResult{SessionID: s.ID, Status: StatusArchived, Message: "Session archived successfully"}, nil
}

// Limits of a message listing (§4.8.1).
const (
	DefaultMessageLimit = 50
	MaxMessageLimit     = 200
)

// MessageList is the data of GET /api/session/{sessionId}/messages.
type MessageList struct {
	SessionID string        `json:"sessionId"`
	Messages  []MessageView `json:"messages"`
	// Total is the session's message count, whatever since and limit leave out.
	Total int `json:"total"`
	// HasMore says that messages after the last one returned exist (beyond limit).
	HasMore bool `json:"hasMore"`
}

// MessageReader reads a session's messages with the session (chatdb.Store).
type MessageReader interface {
	ListMessages(ctx context.Context, tenantID, sessionID string, limit int, since time.Time) (chat.MessagePage, error)
}

// ListMessages returns up to limit messages of the user's session, oldest first, only those
// after since when it is not zero. A session that is not the user's, or is archived, is
// ErrSessionNotFound (§4.8.1: the extension must not pick archived sessions up).
//
// Timestamps are shown to the millisecond and a step's messages share one, so "after since" is
// decided at that precision: a client that passes the last timestamp it saw gets only later
// steps' messages, never the ones it has again.
func ListMessages(ctx context.Context, store MessageReader, id accounts.Identity, sessionID string, limit int, since time.Time) (MessageList, error) {
	if !since.IsZero() {
		since = since.Truncate(time.Millisecond).Add(time.Millisecond - time.Nanosecond)
	}
	// One more than asked tells whether more follow.
	page, err := store.ListMessages(ctx, id.TenantID, sessionID, limit+1, since)
	if errors.Is(err, chat.ErrNotFound) {
		return MessageList{}, ErrSessionNotFound
	}
	if err != nil {
		return MessageList{}, err
	}
	if page.Session.UserID != id.UserID || page.Session.Archived {
		return MessageList{}, ErrSessionNotFound
	}
	msgs := page.Messages
	more := len(msgs) > limit
	if more {
		msgs = msgs[:limit]
	}
	out := MessageList{SessionID: page.Session.ID, Messages: make([]MessageView, 0, len(msgs)), Total: page.Total, HasMore: more}
	for _, m := range msgs {
		out.Messages = append(out.Messages, NewMessageView(m))
	}
	return out, nil
}
