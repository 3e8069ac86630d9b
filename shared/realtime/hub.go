package realtime

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/accounts"
)

// Errors of the hub.
var (
	// ErrTicket: the ticket is unknown, used or expired. $connect refuses the upgrade.
	ErrTicket = errors.New("realtime: invalid ticket")
	// ErrNotFound: no such connection (it closed), or no such record.
	ErrNotFound = errors.New("realtime: not found")
	// ErrNoAccess: the topic is not the connection's user's to watch; Access returns it for a
	// topic of another user or tenant exactly as for one that does not exist.
	ErrNoAccess = errors.New("realtime: no access")
)

// Owner is whose a ticket or a connection is.
type Owner struct {
	TenantID string
	UserID   string
}

// Store is what the hub needs of the store, beyond Log.
type Store interface {
	Log
	PutTicket(ctx context.Context, hash string, o Owner, expires time.Time) error
	// TakeTicket deletes the ticket if it exists and is unexpired at now, atomically: a ticket is
	// taken once. Otherwise ErrTicket.
	TakeTicket(ctx context.Context, hash string, now time.Time) (Owner, error)
	PutConnection(ctx context.Context, connectionID string, o Owner, expires time.Time) error
	// Connection is the connection's owner, or ErrNotFound.
	Connection(ctx context.Context, connectionID string, now time.Time) (Owner, error)
	// Subscriptions are the connection's topics.
	Subscriptions(ctx context.Context, connectionID string) ([]Topic, error)
	Subscribe(ctx context.Context, connectionID string, o Owner, t Topic, expires time.Time) error
	Unsubscribe(ctx context.Context, connectionID string, o Owner, t Topic) error
	// LastID is the topic's last event id, 0 before any.
	LastID(ctx context.Context, tenantID string, t Topic) (int64, error)
	// Since is the kept messages of the topic after id, oldest first.
	Since(ctx context.Context, tenantID string, t Topic, id int64, now time.Time) ([]Message, error)
}

// Access decides whether the owner may watch a topic, exactly as the topic's HTTP routes decide
// it: ErrNoAccess when not.
type Access interface {
	Watch(ctx context.Context, o Owner, t Topic) error
}

// Hub serves the WebSocket routes and issues tickets.
type Hub struct {
	Store  Store
	Poster Poster
	Access Access
	// URL is the WebSocket API's address given with each ticket.
	URL    string
	Now    func() time.Time
	Logger *slog.Logger
}

// Lifetimes and bounds.
const (
	TicketTTL = 60 * time.Second
	// ConnectionTTL is API Gateway's maximum connection duration, plus a margin.
	ConnectionTTL = 2*time.Hour + 5*time.Minute
	// MaxSubscriptions bounds one connection's topics.
	MaxSubscriptions = 20
	// maxReplay bounds the events one subscribe resends.
	maxReplay = 500
)

func (h *Hub) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

func (h *Hub) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// Ticket is the answer of POST /api/realtime/ticket.
type Ticket struct {
	Ticket    string `json:"ticket"`
	ExpiresAt string `json:"expiresAt"`
	URL       string `json:"url"`
}

// IssueTicket makes a single-use ticket for the identity. Only its hash is stored, so the table
// holds nothing that connects.
func (h *Hub) IssueTicket(ctx context.Context, id accounts.Identity) (Ticket, error) {
	raw := make([]byte, 32)
	rand.Read(raw)
	value := base64.RawURLEncoding.EncodeToString(raw)
	expires := h.now().Add(TicketTTL).UTC()
	if err := h.Store.PutTicket(ctx, hashTicket(value), Owner{TenantID: id.TenantID, UserID: id.UserID}, expires); err != nil {
		return Ticket{}, fmt.Errorf("issue ticket: %w", err)
	}
	return Ticket{Ticket: value, ExpiresAt: expires.Format(time.RFC3339), URL: h.URL}, nil
}

func hashTicket(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}

// Connect takes the ticket and records the connection as its owner's. ErrTicket refuses it.
func (h *Hub) Connect(ctx context.Context, connectionID, ticket string) (Owner, error) {
	if ticket == "" || len(ticket) > 128 {
		return Owner{}, ErrTicket
	}
	o, err := h.Store.TakeTicket(ctx, hashTicket(ticket), h.now())
	if err != nil {
		return Owner{}, err
	}
	if err := h.Store.PutConnection(ctx, connectionID, o, h.now().Add(ConnectionTTL)); err != nil {
		return Owner{}, fmt.Errorf("connect: %w", err)
	}
	return o, nil
}

// Disconnect removes the connection; its subscriptions linger for the resume window, so that
// events published meanwhile are kept for its successor's subscribe with since.
func (h *Hub) Disconnect(ctx context.Context, connectionID string) error {
	return h.Store.Close(ctx, connectionID, h.now().Add(DefaultResumeWindow))
}

// Request is a message a client sends: {"action":"subscribe","sessionId":"…","since":12}.
type Request struct {
	Action    string `json:"action"`
	SessionID string `json:"sessionId"`
	RunID     string `json:"runId"`
	Since     *int64 `json:"since"`
}

// Error codes of error messages.
const (
	CodeBadRequest    = "VALIDATION_ERROR"
	CodeUnknownAction = "UNKNOWN_ACTION"
	CodeNotFound      = "NOT_FOUND"
	CodeTooMany       = "TOO_MANY_SUBSCRIPTIONS"
	CodeInternal      = "INTERNAL_ERROR"
)

// Handle answers one client message of the route: subscribe, unsubscribe, or anything else
// ($default). Answers go to the connection through the Poster; only a failure to answer at all is
// returned.
func (h *Hub) Handle(ctx context.Context, connectionID string, body []byte) error {
	req, t, refusal := parse(body)
	if refusal != nil {
		return h.send(ctx, connectionID, refusal)
	}
	o, err := h.Store.Connection(ctx, connectionID, h.now())
	if err != nil {
		return h.fail(ctx, connectionID, fmt.Errorf("connection: %w", err))
	}
	// Unsubscribing needs no check: a subscription is kept under its owner's tenant, so one can only
	// remove one's own.
	if req.Action == "unsubscribe" {
		if err := h.Store.Unsubscribe(ctx, connectionID, o, t); err != nil {
			return h.fail(ctx, connectionID, fmt.Errorf("unsubscribe: %w", err))
		}
		sid, rid := topicFields(t)
		return h.send(ctx, connectionID, Unsubscribed{Type: "unsubscribed", SessionID: sid, RunID: rid})
	}
	if err := h.Access.Watch(ctx, o, t); errors.Is(err, ErrNoAccess) {
		return h.refuse(ctx, connectionID, CodeNotFound, notFound(t))
	} else if err != nil {
		return h.fail(ctx, connectionID, fmt.Errorf("access: %w", err))
	}
	return h.subscribe(ctx, connectionID, o, t, req.Since)
}

// subscribe records the subscription before it reads the kept events, so an event published in
// between is both sent and replayed (the client drops ids it has seen) rather than missed.
func (h *Hub) subscribe(ctx context.Context, connectionID string, o Owner, t Topic, since *int64) error {
	topics, err := h.Store.Subscriptions(ctx, connectionID)
	if err != nil {
		return h.fail(ctx, connectionID, fmt.Errorf("subscriptions: %w", err))
	}
	already := false
	for _, x := range topics {
		already = already || x == t
	}
	if !already && len(topics) >= MaxSubscriptions {
		return h.refuse(ctx, connectionID, CodeTooMany, fmt.Sprintf("A connection may watch at most %d sessions and runs.", MaxSubscriptions))
	}
	if err := h.Store.Subscribe(ctx, connectionID, o, t, h.now().Add(ConnectionTTL)); err != nil {
		return h.fail(ctx, connectionID, fmt.Errorf("subscribe: %w", err))
	}
	last, err := h.Store.LastID(ctx, o.TenantID, t)
	if err != nil {
		return h.fail(ctx, connectionID, fmt.Errorf("last id: %w", err))
	}
	sid, rid := topicFields(t)
	if err := h.send(ctx, connectionID, Subscribed{Type: "subscribed", SessionID: sid, RunID: rid, LastID: last}); err != nil || since == nil {
		return err
	}
	msgs, err := h.Store.Since(ctx, o.TenantID, t, *since, h.now())
	if err != nil {
		return h.fail(ctx, connectionID, fmt.Errorf("replay: %w", err))
	}
	for _, m := range msgs[:min(len(msgs), maxReplay)] {
		if err := Post(ctx, h.Poster, connectionID, m.Data); err != nil {
			return h.gone(ctx, connectionID, err)
		}
	}
	return nil
}

// parse reads a client's message, untrusted text: a request for a topic, or the error to answer.
func parse(body []byte) (Request, Topic, *ErrorMessage) {
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		return req, Topic{}, &ErrorMessage{Type: "error", Code: CodeBadRequest, Message: "The message must be a JSON object with an action."}
	}
	switch req.Action {
	case "subscribe", "unsubscribe":
	default:
		return req, Topic{}, &ErrorMessage{Type: "error", Code: CodeUnknownAction, Message: `Unknown action: use "subscribe" or "unsubscribe".`}
	}
	t, err := req.topic()
	if err != nil {
		return req, Topic{}, &ErrorMessage{Type: "error", Code: CodeBadRequest, Message: err.Error()}
	}
	return req, t, nil
}

func (r Request) topic() (Topic, error) {
	switch {
	case (r.SessionID == "") == (r.RunID == ""):
		return Topic{}, errors.New("Give exactly one of sessionId and runId.")
	case r.Since != nil && *r.Since < 0:
		return Topic{}, errors.New("since must be an event id (0 or more).")
	}
	id, ok := canonical(r.SessionID + r.RunID)
	switch {
	case !ok:
		return Topic{}, errors.New("The id must be a UUID.")
	case r.RunID != "":
		return Run(id), nil
	}
	return Session(id), nil
}

// canonical accepts the ids of sessions and runs as the HTTP routes do: a UUID in its canonical
// form, any case, returned in lower case (the form the server issues).
func canonical(s string) (string, bool) {
	id, err := uuid.Parse(s)
	if err != nil || id.String() != strings.ToLower(s) {
		return "", false
	}
	return id.String(), true
}

func notFound(t Topic) string {
	if t.Kind == KindRun {
		return "Run not found or expired."
	}
	return "Session not found."
}

func (h *Hub) refuse(ctx context.Context, connectionID, code, message string) error {
	return h.send(ctx, connectionID, ErrorMessage{Type: "error", Code: code, Message: message})
}

// fail logs the cause and tells the client only that the request failed.
func (h *Hub) fail(ctx context.Context, connectionID string, cause error) error {
	h.logger().ErrorContext(ctx, "realtime request failed", "connectionId", connectionID, "error", cause.Error())
	return h.refuse(ctx, connectionID, CodeInternal, "The request failed; try again.")
}

func (h *Hub) send(ctx context.Context, connectionID string, v any) error {
	data, _ := json.Marshal(v) // control messages are plain strings and numbers
	if err := Post(ctx, h.Poster, connectionID, data); err != nil {
		return h.gone(ctx, connectionID, err)
	}
	return nil
}

// gone removes a connection the gateway no longer has; other post failures are returned.
func (h *Hub) gone(ctx context.Context, connectionID string, err error) error {
	if !errors.Is(err, ErrGone) {
		return fmt.Errorf("post to %s: %w", connectionID, err)
	}
	if cerr := h.Disconnect(ctx, connectionID); cerr != nil {
		return fmt.Errorf("remove gone connection: %w", cerr)
	}
	return nil
}
