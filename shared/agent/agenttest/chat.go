package agenttest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/chat"
)

// Chat is an in-memory chat store (chatdb.Store) of sessions, their messages and page
// snapshots. The zero value is not usable: use NewChat.
type Chat struct {
	// Retention sets every expiry; MaxSnapshotBytes is the largest compressed page stored; Now
	// is the store's clock (time.Now by default).
	Retention        chat.Retention
	MaxSnapshotBytes int
	Now              func() time.Time

	mu        sync.Mutex
	sessions  map[string]chat.Session
	messages  map[string][]chat.Message // by session, in sequence
	snapshots map[string]map[string]snapshot
}

type snapshot struct {
	chat.Snapshot
	expires time.Time
}

// maxSnapshotBytes is chatdb.DefaultMaxSnapshotBytes (not imported: it would link DynamoDB into
// the engine's tests): a page over it is omitted here as there.
const maxSnapshotBytes = 350_000

// NewChat returns an empty store that keeps what it writes as r says.
func NewChat(r chat.Retention) *Chat {
	return &Chat{
		Retention: r, MaxSnapshotBytes: maxSnapshotBytes,
		sessions: map[string]chat.Session{}, messages: map[string][]chat.Message{}, snapshots: map[string]map[string]snapshot{},
	}
}

// now is the clock in UTC without a monotonic reading, as stored times are.
func (s *Chat) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Round(0)
	}
	return time.Now().UTC().Round(0)
}

// expired reports whether an item with expiry exp is absent at now: expiry is whole seconds.
func expired(exp, now time.Time) bool { return exp.Unix() <= now.Unix() }

func sessionKey(tenantID, sessionID string) string { return tenantID + "\x00" + sessionID }

// GetSession returns a session of the tenant, or chat.ErrNotFound when there is none or it has expired.
func (s *Chat) GetSession(_ context.Context, tenantID, sessionID string) (chat.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.liveSession(tenantID, sessionID)
	if err != nil {
		return chat.Session{}, fmt.Errorf("get session %s: %w", sessionID, err)
	}
	return sess, nil
}

func (s *Chat) liveSession(tenantID, sessionID string) (chat.Session, error) {
	sess, ok := s.sessions[sessionKey(tenantID, sessionID)]
	if !ok || expired(sess.ExpiresAt, s.now()) {
		return chat.Session{}, chat.ErrNotFound
	}
	sess.Metadata = maps.Clone(sess.Metadata)
	return sess, nil
}

// CaptureDOM summarizes a step's page and prepares its snapshot; a page the session holds with
// at least half its retention left is named without a snapshot to write.
func (s *Chat) CaptureDOM(_ context.Context, tenantID, sessionID, dom string) (chat.DOMCapture, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := chat.CaptureDOM(dom, s.MaxSnapshotBytes)
	if err != nil || c.Snapshot == nil {
		return c, err
	}
	if snap, ok := s.snapshots[sessionKey(tenantID, sessionID)][c.SnapshotID]; ok && snap.expires.After(s.now().Add(s.Retention.Snapshot/2)) {
		c.Snapshot = nil
	}
	return c, nil
}

// SetStatus sets a session's status, following its task, with the expiry it brings to the
// session and its messages.
func (s *Chat) SetStatus(_ context.Context, tenantID, sessionID string, status chat.Status) (chat.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.liveSession(tenantID, sessionID)
	if err != nil {
		return chat.Session{}, fmt.Errorf("set session %s status: %w", sessionID, err)
	}
	if !status.Valid() {
		return chat.Session{}, fmt.Errorf("set session %s status: %q is not a session status", sessionID, status)
	}
	if status == sess.Status {
		return sess, nil
	}
	sess.Status = status
	sess.ExpiresAt = s.Retention.SessionExpiry(status, s.now())
	s.sessions[sessionKey(tenantID, sessionID)] = sess
	s.alignRetention(tenantID, sessionID)
	return sess, nil
}

// alignRetention gives every live message of a session the session's expiry, and cuts snapshots
// that would outlive it.
func (s *Chat) alignRetention(tenantID, sessionID string) {
	k := sessionKey(tenantID, sessionID)
	target, now := s.sessions[k].ExpiresAt, s.now()
	for i, m := range s.messages[k] {
		if expired(m.ExpiresAt, now) {
			continue
		}
		s.messages[k][i].ExpiresAt = target
		if snap, ok := s.snapshots[k][m.SnapshotID]; ok && !expired(snap.expires, now) && snap.expires.After(target) && m.Timestamp.Add(s.Retention.Snapshot).After(target) {
			snap.expires = target
			s.snapshots[k][m.SnapshotID] = snap
		}
	}
}

// ListMessages returns a session's live messages oldest first, at most limit (all when limit ≤ 0),
// only those after since when it is not zero, with the session.
func (s *Chat) ListMessages(_ context.Context, tenantID, sessionID string, limit int, since time.Time) (chat.MessagePage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.liveSession(tenantID, sessionID)
	if err != nil {
		return chat.MessagePage{}, fmt.Errorf("list messages of session %s: %w", sessionID, err)
	}
	var msgs []chat.Message
	for _, m := range s.messages[sessionKey(tenantID, sessionID)] {
		if limit > 0 && len(msgs) == limit {
			break
		}
		if expired(m.ExpiresAt, s.now()) || !since.IsZero() && !m.Timestamp.After(since) {
			continue
		}
		c, err := detach(m)
		if err != nil {
			return chat.MessagePage{}, err
		}
		msgs = append(msgs, c)
	}
	return chat.MessagePage{Session: sess, Messages: msgs, Total: sess.MessageCount}, nil
}

// GetSnapshot returns the page a message's SnapshotID names, decompressed, or chat.ErrNotFound.
func (s *Chat) GetSnapshot(_ context.Context, tenantID, sessionID, snapshotID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.snapshots[sessionKey(tenantID, sessionID)][snapshotID]
	if !ok || expired(snap.expires, s.now()) {
		return "", fmt.Errorf("get snapshot %s of session %s: %w", snapshotID, sessionID, chat.ErrNotFound)
	}
	return snap.DOM()
}

// chatStep is what one commit writes to a session, checked and ready to apply.
type chatStep struct {
	key      string
	session  chat.Session
	messages []chat.Message
	snapshot *chat.Snapshot
	// statusChanged: the messages written before carry the old status's expiry until aligned.
	statusChanged bool
}

// errStale is a session that changed since it was read, or exists already when created: the
// writer reports it as its own conflict.
var errStale = errors.New("agenttest: session changed")

// prepare checks a step's writes to sess (as read, or new) against the store, as chatdb's
// conditions do, and computes the session and messages after it. The caller holds s.mu.
func (s *Chat) prepare(sess chat.Session, isNew bool, msgs []chat.Message, snap *chat.Snapshot, status chat.Status, taskID string, now time.Time) (chatStep, error) {
	now = now.UTC().Round(0)
	if err := s.check(sess, isNew, len(msgs), status, now); err != nil {
		return chatStep{}, err
	}
	next := sess
	next.Metadata = maps.Clone(sess.Metadata)
	if isNew && next.CreatedAt.IsZero() {
		next.CreatedAt = now
	}
	if status != "" {
		next.Status = status
	}
	if taskID != "" {
		next.TaskID = taskID
	}
	next.UpdatedAt, next.MessageCount = now, sess.MessageCount+len(msgs)
	next.ExpiresAt = s.Retention.SessionExpiry(next.Status, now)
	out := chatStep{key: sessionKey(sess.TenantID, sess.ID), session: next, snapshot: snap, statusChanged: !isNew && next.Status != sess.Status}
	referenced := false
	for i, m := range msgs {
		m, err := message(m, i, next, sess.MessageCount, now)
		if err != nil {
			return chatStep{}, err
		}
		out.messages = append(out.messages, m)
		referenced = referenced || snap != nil && m.SnapshotID == snap.ID
	}
	if snap != nil && !referenced {
		return chatStep{}, fmt.Errorf("snapshot %s: no message of the step references it", snap.ID)
	}
	return out, nil
}

// check refuses a step that is wrong in itself, and is errStale when the session was created or
// changed since it was read.
func (s *Chat) check(sess chat.Session, isNew bool, messages int, status chat.Status, now time.Time) error {
	if sess.ID == "" || sess.TenantID == "" || sess.UserID == "" {
		return errors.New("session needs an ID, a tenant and a user")
	}
	if !sess.Status.Valid() || status != "" && !status.Valid() {
		return fmt.Errorf("session %s: status %q or %q is not a session status", sess.ID, sess.Status, status)
	}
	cur, exists := s.sessions[sessionKey(sess.TenantID, sess.ID)]
	switch {
	case isNew && (sess.MessageCount != 0 || sess.Archived):
		return fmt.Errorf("create session %s: a new session has no messages and is not archived", sess.ID)
	case !isNew && messages == 0:
		return fmt.Errorf("append to session %s: no messages", sess.ID)
	case isNew && exists:
		return errStale
	case !isNew && (!exists || cur.MessageCount != sess.MessageCount || cur.Status != sess.Status || cur.Archived != sess.Archived || expired(cur.ExpiresAt, now)):
		return errStale
	}
	return nil
}

// message is the i-th message of a step as stored in the session after it (next).
func message(m chat.Message, i int, next chat.Session, before int, now time.Time) (chat.Message, error) {
	if err := m.Validate(); err != nil {
		return chat.Message{}, fmt.Errorf("message %d: %w", i+1, err)
	}
	m, err := detach(m)
	if err != nil {
		return chat.Message{}, err
	}
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	if m.Timestamp.IsZero() {
		m.Timestamp = now
	}
	// The table keeps the latency in milliseconds.
	m.Timestamp, m.Latency = m.Timestamp.UTC().Round(0), m.Latency.Truncate(time.Millisecond)
	m.SessionID, m.TaskID, m.SequenceNumber, m.ExpiresAt = next.ID, next.TaskID, before+i+1, next.ExpiresAt
	return m, nil
}

// apply writes a prepared step. The caller holds s.mu.
func (s *Chat) apply(c chatStep, now time.Time) {
	now = now.UTC().Round(0)
	s.sessions[c.key] = c.session
	s.messages[c.key] = append(s.messages[c.key], c.messages...)
	if c.snapshot != nil {
		if s.snapshots[c.key] == nil {
			s.snapshots[c.key] = map[string]snapshot{}
		}
		snap := *c.snapshot
		snap.Gzip = slices.Clone(snap.Gzip)
		s.snapshots[c.key][snap.ID] = snapshot{Snapshot: snap, expires: s.Retention.SnapshotExpiry(now, c.session.ExpiresAt)}
	}
	if c.statusChanged {
		s.alignRetention(c.session.TenantID, c.session.ID)
	}
}
