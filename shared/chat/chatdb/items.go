package chatdb

import (
	"fmt"
	"maps"
	"time"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
)

// The stored shapes of the items. Attribute names are lower camel case like the API's data;
// times are fixed-width strings (sortableTime) so that conditions and filters compare them.

type sessionItem struct {
	PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK string
	RetentionPK, RetentionSK               string
	SessionID                              string            `dynamodbav:"sessionId"`
	TenantID                               string            `dynamodbav:"tenantId"`
	UserID                                 string            `dynamodbav:"userId"`
	TaskID                                 string            `dynamodbav:"taskId"`
	URL                                    string            `dynamodbav:"url"`
	Domain                                 string            `dynamodbav:"domain"`
	Title                                  string            `dynamodbav:"title"`
	Status                                 chat.Status       `dynamodbav:"status"`
	Archived                               bool              `dynamodbav:"archived"`
	ArchivedAt                             string            `dynamodbav:"archivedAt,omitempty"`
	MessageCount                           int               `dynamodbav:"messageCount"`
	CreatedAt                              string            `dynamodbav:"createdAt"`
	UpdatedAt                              string            `dynamodbav:"updatedAt"`
	Metadata                               map[string]string `dynamodbav:"metadata,omitempty"`
	ExpiresAt                              time.Time         `dynamodbav:"expiresAt,unixtime"`
}

func newSessionItem(s chat.Session) sessionItem {
	it := sessionItem{
		PK: SessionPK(s.TenantID, s.ID), SK: SessionSK,
		GSI1PK: userPartition(s.TenantID, s.UserID, s.Archived), GSI1SK: recency(s.UpdatedAt, s.ID),
		GSI2PK: statusPartition(s.TenantID, s.UserID, s.Archived, s.Status), GSI2SK: recency(s.UpdatedAt, s.ID),
		SessionID: s.ID, TenantID: s.TenantID, UserID: s.UserID, TaskID: s.TaskID,
		URL: s.URL, Domain: s.Domain, Title: s.Title, Status: s.Status,
		Archived: s.Archived, MessageCount: s.MessageCount,
		CreatedAt: dynamo.Sortable(s.CreatedAt), UpdatedAt: dynamo.Sortable(s.UpdatedAt),
		Metadata: s.Metadata, ExpiresAt: s.ExpiresAt,
	}
	it.RetentionPK, it.RetentionSK = retentionKeys(s)
	if !s.ArchivedAt.IsZero() {
		it.ArchivedAt = dynamo.Sortable(s.ArchivedAt)
	}
	return it
}

func (i sessionItem) session() (chat.Session, error) {
	created, err1 := dynamo.ParseTime(i.CreatedAt)
	updated, err2 := dynamo.ParseTime(i.UpdatedAt)
	archived, err3 := dynamo.ParseTime(i.ArchivedAt)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return chat.Session{}, fmt.Errorf("stored session %s: %w", i.SessionID, err)
		}
	}
	return chat.Session{
		ID: i.SessionID, TenantID: i.TenantID, UserID: i.UserID, TaskID: i.TaskID,
		URL: i.URL, Domain: i.Domain, Title: i.Title, Status: i.Status,
		Archived: i.Archived, ArchivedAt: archived, MessageCount: i.MessageCount,
		CreatedAt: created, UpdatedAt: updated, Metadata: maps.Clone(i.Metadata), ExpiresAt: i.ExpiresAt.UTC(),
	}, nil
}

type messageItem struct {
	PK, SK          string
	MessageID       string             `dynamodbav:"messageId"`
	SessionID       string             `dynamodbav:"sessionId"`
	TaskID          string             `dynamodbav:"taskId,omitempty"`
	Role            chat.Role          `dynamodbav:"role"`
	Content         string             `dynamodbav:"content"`
	ActionString    string             `dynamodbav:"actionString,omitempty"`
	Status          chat.MessageStatus `dynamodbav:"status,omitempty"`
	Error           *errorItem         `dynamodbav:"error,omitempty"`
	SequenceNumber  int                `dynamodbav:"sequenceNumber"`
	Timestamp       string             `dynamodbav:"timestamp"`
	SnapshotID      string             `dynamodbav:"snapshotId,omitempty"`
	DOMSummary      string             `dynamodbav:"domSummary,omitempty"`
	DOMLength       int                `dynamodbav:"domLength,omitempty"`
	SnapshotOmitted string             `dynamodbav:"snapshotOmitted,omitempty"`
	Tokens          *usageItem         `dynamodbav:"tokens,omitempty"`
	LatencyMs       int64              `dynamodbav:"latencyMs,omitempty"`
	Model           string             `dynamodbav:"model,omitempty"`
	ExpiresAt       time.Time          `dynamodbav:"expiresAt,unixtime"`
}

type errorItem struct {
	Message   string `dynamodbav:"message,omitempty"`
	Code      string `dynamodbav:"code,omitempty"`
	Action    string `dynamodbav:"action,omitempty"`
	ElementID *int   `dynamodbav:"elementId,omitempty"`
}

type usageItem struct {
	PromptTokens     int `dynamodbav:"promptTokens"`
	CompletionTokens int `dynamodbav:"completionTokens"`
}

func newMessageItem(tenantID string, m chat.Message) messageItem {
	it := messageItem{
		PK: SessionPK(tenantID, m.SessionID), SK: messageSK(m.SequenceNumber),
		MessageID: m.ID, SessionID: m.SessionID, TaskID: m.TaskID, Role: m.Role, Content: m.Content,
		ActionString: m.ActionString, Status: m.Status, SequenceNumber: m.SequenceNumber,
		Timestamp: dynamo.Sortable(m.Timestamp), SnapshotID: m.SnapshotID, DOMSummary: m.DOMSummary,
		DOMLength: m.DOMLength, SnapshotOmitted: m.SnapshotOmitted, LatencyMs: m.Latency.Milliseconds(),
		Model: m.Model, ExpiresAt: m.ExpiresAt,
	}
	if e := m.Error; e != nil {
		it.Error = &errorItem{Message: e.Message, Code: e.Code, Action: e.Action, ElementID: e.ElementID}
	}
	if u := m.Usage; u != nil {
		it.Tokens = &usageItem{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
	return it
}

func (i messageItem) message() (chat.Message, error) {
	ts, err := dynamo.ParseTime(i.Timestamp)
	if err != nil {
		return chat.Message{}, fmt.Errorf("stored message %s: %w", i.MessageID, err)
	}
	m := chat.Message{
		ID: i.MessageID, SessionID: i.SessionID, TaskID: i.TaskID, Role: i.Role, Content: i.Content,
		ActionString: i.ActionString, Status: i.Status, SequenceNumber: i.SequenceNumber, Timestamp: ts,
		SnapshotID: i.SnapshotID, DOMSummary: i.DOMSummary, DOMLength: i.DOMLength,
		SnapshotOmitted: i.SnapshotOmitted, Latency: time.Duration(i.LatencyMs) * time.Millisecond,
		Model: i.Model, ExpiresAt: i.ExpiresAt.UTC(),
	}
	if e := i.Error; e != nil {
		m.Error = &chat.ActionError{Message: e.Message, Code: e.Code, Action: e.Action, ElementID: e.ElementID}
	}
	if u := i.Tokens; u != nil {
		m.Usage = &chat.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
	return m, nil
}

// snapshotItem holds a page gzip-compressed in a Binary attribute; the page is never stored
// uncompressed.
type snapshotItem struct {
	PK, SK                   string
	RetentionPK, RetentionSK string
	SnapshotID               string    `dynamodbav:"snapshotId"`
	Gzip                     []byte    `dynamodbav:"gzip"`
	DOMLength                int       `dynamodbav:"domLength"`
	CreatedAt                string    `dynamodbav:"createdAt"`
	ExpiresAt                time.Time `dynamodbav:"expiresAt,unixtime"`
}
