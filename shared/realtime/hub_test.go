package realtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/realtime/realtimedb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// inbox records what is posted to each connection; gone ones answer 410.
type inbox struct {
	mu    sync.Mutex
	posts map[string][]map[string]any
	gone  map[string]bool
}

func (b *inbox) Post(_ context.Context, id string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gone[id] {
		return realtime.ErrGone
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("posted %s: %w", data, err)
	}
	if b.posts == nil {
		b.posts = map[string][]map[string]any{}
	}
	b.posts[id] = append(b.posts[id], m)
	return nil
}

func (b *inbox) take(id string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.posts[id]
	delete(b.posts, id)
	return p
}

// denied is an Access that refuses the topics it lists.
type denied map[realtime.Topic]bool

func (d denied) Watch(_ context.Context, _ realtime.Owner, t realtime.Topic) error {
	if d[t] {
		return realtime.ErrNoAccess
	}
	return nil
}

const (
	mine   = "5e0b7c1e-7d3a-4c59-9a55-0c1f3f2d1a01"
	theirs = "5e0b7c1e-7d3a-4c59-9a55-0c1f3f2d1a02"
)

func newHub(t *testing.T) (*realtime.Hub, *realtimedb.Store, *inbox, *dynamotest.DB) {
	db := dynamotest.New(t)
	store := realtimedb.New(db.Client, db.Tables["RealtimeTable"])
	posts := &inbox{gone: map[string]bool{}}
	return &realtime.Hub{Store: store, Poster: posts, Access: denied{realtime.Session(theirs): true}, URL: "ws://here"}, store, posts, db
}

func connect(t *testing.T, hub *realtime.Hub, id string) {
	t.Helper()
	tk, err := hub.IssueTicket(context.Background(), accounts.Identity{TenantID: "ten-a", UserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hub.Connect(context.Background(), id, tk.Ticket); err != nil {
		t.Fatal(err)
	}
}

// Only the ticket's hash is stored, and a ticket connects once.
func TestTicketConnectsOnce(t *testing.T) {
	hub, _, _, db := newHub(t)
	ctx := context.Background()
	tk, err := hub.IssueTicket(ctx, accounts.Identity{TenantID: "ten-a", UserID: "u1"})
	if err != nil || tk.URL != "ws://here" || len(tk.Ticket) < 40 {
		t.Fatalf("ticket = %+v, %v", tk, err)
	}
	out, err := db.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db.Tables["RealtimeTable"])})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		if raw, _ := json.Marshal(it); strings.Contains(string(raw), tk.Ticket) {
			t.Errorf("the ticket itself is stored: %s", raw)
		}
	}
	if o, err := hub.Connect(ctx, "c1", tk.Ticket); err != nil || o != (realtime.Owner{TenantID: "ten-a", UserID: "u1"}) {
		t.Errorf("first connect = %+v, %v; want the ticket's owner", o, err)
	}
	for _, ticket := range []string{tk.Ticket, "", strings.Repeat("x", 200)} {
		if _, err := hub.Connect(ctx, "c2", ticket); !errors.Is(err, realtime.ErrTicket) {
			t.Errorf("connect with %.20q: %v, want ErrTicket", ticket, err)
		}
	}
}

func TestHandle(t *testing.T) {
	hub, store, posts, _ := newHub(t)
	ctx := context.Background()
	connect(t, hub, "c1")
	send := func(body string) []map[string]any {
		t.Helper()
		if err := hub.Handle(ctx, "c1", []byte(body)); err != nil {
			t.Fatalf("Handle(%s) = %v", body, err)
		}
		return posts.take("c1")
	}

	if got := send(`{"action":"subscribe","sessionId":"` + theirs + `"}`); len(got) != 1 || got[0]["code"] != realtime.CodeNotFound {
		t.Errorf("subscribe to a session of another user: got %v, want one NOT_FOUND error", got)
	}
	if subs, _ := store.Subscribers(ctx, "ten-a", realtime.Session(theirs)); len(subs) != 0 {
		t.Errorf("a refused subscription was stored: %v", subs)
	}
	if got := send(`{"action":"subscribe","sessionId":"` + mine + `"}`); len(got) != 1 || got[0]["type"] != "subscribed" || got[0]["lastId"] != 0.0 {
		t.Errorf("subscribe: got %v, want subscribed with lastId 0", got)
	}

	// Events published meanwhile are replayed after since, in order.
	pub := &realtime.Publisher{Log: store, Poster: posts}
	for i := 1; i <= 3; i++ {
		pub.Open(ctx, "ten-a", realtime.Session(mine)).Send(ctx, realtime.TaskStatus{SessionID: mine, TaskID: "t", Status: fmt.Sprint(i)})
	}
	posts.take("c1")
	got := send(`{"action":"subscribe","sessionId":"` + mine + `","since":1}`)
	if len(got) != 3 || got[0]["lastId"] != 3.0 || got[1]["id"] != 2.0 || got[2]["id"] != 3.0 {
		t.Errorf("subscribe since 1: got %v, want subscribed (lastId 3) then events 2 and 3", got)
	}

	if got := send(`{"action":"unsubscribe","sessionId":"` + mine + `"}`); len(got) != 1 || got[0]["type"] != "unsubscribed" {
		t.Errorf("unsubscribe: got %v", got)
	}
	if subs, _ := store.Subscribers(ctx, "ten-a", realtime.Session(mine)); len(subs) != 0 {
		t.Errorf("subscribers after unsubscribe: %v", subs)
	}

	for i := range realtime.MaxSubscriptions {
		send(fmt.Sprintf(`{"action":"subscribe","runId":"5e0b7c1e-7d3a-4c59-9a55-0c1f3f2d%04d"}`, i))
	}
	if got := send(`{"action":"subscribe","sessionId":"` + mine + `"}`); len(got) != 1 || got[0]["code"] != realtime.CodeTooMany {
		t.Errorf("subscription %d: got %v, want TOO_MANY_SUBSCRIPTIONS", realtime.MaxSubscriptions+1, got)
	}
}

// A connection the gateway no longer has (410 on the answer) is removed.
func TestHandleRemovesGoneConnection(t *testing.T) {
	hub, store, posts, _ := newHub(t)
	ctx := context.Background()
	connect(t, hub, "c1")
	posts.gone["c1"] = true
	if err := hub.Handle(ctx, "c1", []byte(`{"action":"subscribe","sessionId":"`+mine+`"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Connection(ctx, "c1", time.Now()); !errors.Is(err, realtime.ErrNotFound) {
		t.Errorf("connection after a 410: %v, want ErrNotFound", err)
	}
	if subs, _ := store.Subscribers(ctx, "ten-a", realtime.Session(mine)); len(subs) != 1 || subs[0].Live {
		t.Errorf("subscribers = %+v, want the gone connection lingering, not live", subs)
	}
}
