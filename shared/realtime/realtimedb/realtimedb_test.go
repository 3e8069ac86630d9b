package realtimedb_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/realtime/realtimedb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// counting records the DynamoDB operations made through it.
type counting struct {
	realtimedb.DB
	mu  sync.Mutex
	ops []string
}

func (c *counting) note(op string) {
	c.mu.Lock()
	c.ops = append(c.ops, op)
	c.mu.Unlock()
}

func (c *counting) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.note("Query")
	return c.DB.Query(ctx, in, opts...)
}

func (c *counting) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.note("GetItem")
	return c.DB.GetItem(ctx, in, opts...)
}

func (c *counting) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.note("UpdateItem")
	return c.DB.UpdateItem(ctx, in, opts...)
}

func (c *counting) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.note("PutItem")
	return c.DB.PutItem(ctx, in, opts...)
}

func (c *counting) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.note("DeleteItem")
	return c.DB.DeleteItem(ctx, in, opts...)
}

func (c *counting) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.note("BatchWriteItem")
	return c.DB.BatchWriteItem(ctx, in, opts...)
}

func (c *counting) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.note("TransactWriteItems")
	return c.DB.TransactWriteItems(ctx, in, opts...)
}

func (c *counting) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ops := c.ops
	c.ops = nil
	return ops
}

// poster records posts; connections in gone answer 410.
type poster struct {
	mu    sync.Mutex
	posts map[string][]string
	gone  map[string]bool
}

func (p *poster) Post(_ context.Context, id string, data []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone[id] {
		return realtime.ErrGone
	}
	if p.posts == nil {
		p.posts = map[string][]string{}
	}
	p.posts[id] = append(p.posts[id], string(data))
	return nil
}

func (p *poster) sent(id string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.posts[id])
}

const (
	tenant  = "ten-a"
	session = "5e0b7c1e-7d3a-4c59-9a55-0c1f3f2d1a01"
)

func newStore(t *testing.T) (*realtimedb.Store, *counting) {
	db := dynamotest.New(t)
	c := &counting{DB: db.Client}
	return realtimedb.New(c, db.Tables["RealtimeTable"]), c
}

func progress(step int) realtime.StepProgress {
	return realtime.StepProgress{SessionID: session, TaskID: "task-1", CurrentStep: step, TotalSteps: 3, StepDescription: "step", StepStatus: realtime.StepExecuting}
}

// A step's publishing on a session nobody watches is one query and nothing else: no id, no kept
// event, no post.
func TestPublishWithoutSubscribersIsOneQuery(t *testing.T) {
	store, db := newStore(t)
	posts := &poster{}
	pub := &realtime.Publisher{Log: store, Poster: posts}
	ctx := context.Background()

	stream := pub.Open(ctx, tenant, realtime.Session(session))
	stream.Send(ctx, progress(1))
	stream.Send(ctx, progress(1), progress(2))
	if ops := db.take(); !slices.Equal(ops, []string{"Query"}) {
		t.Errorf("got operations %v, want [Query]", ops)
	}
	if len(posts.posts) != 0 {
		t.Errorf("got posts %v, want none", posts.posts)
	}
}

// Subscribers of a topic get its events with increasing ids, a subscriber of another tenant's
// topic of the same id gets nothing, and a gone connection (410) is removed while its
// subscription lingers, so its events are still kept for a resume.
func TestPublishToSubscribers(t *testing.T) {
	store, _ := newStore(t)
	posts := &poster{gone: map[string]bool{"gone": true}}
	pub := &realtime.Publisher{Log: store, Poster: posts}
	ctx := context.Background()
	now := time.Now()
	a, other := realtime.Owner{TenantID: tenant, UserID: "u1"}, realtime.Owner{TenantID: "ten-b", UserID: "u9"}
	for _, c := range []struct {
		id    string
		owner realtime.Owner
	}{{"c1", a}, {"gone", a}, {"c9", other}} {
		if err := store.PutConnection(ctx, c.id, c.owner, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := store.Subscribe(ctx, c.id, c.owner, realtime.Session(session), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}

	pub.Open(ctx, tenant, realtime.Session(session)).Send(ctx, progress(1), progress(2))
	pub.Open(ctx, tenant, realtime.Session(session)).Send(ctx, progress(3))

	got := posts.sent("c1")
	want := []string{
		`{"type":"step_progress","id":1,"sessionId":"` + session + `","taskId":"task-1","currentStep":1,"totalSteps":3,"stepDescription":"step","stepStatus":"executing"}`,
		`{"type":"step_progress","id":2,"sessionId":"` + session + `","taskId":"task-1","currentStep":2,"totalSteps":3,"stepDescription":"step","stepStatus":"executing"}`,
		`{"type":"step_progress","id":3,"sessionId":"` + session + `","taskId":"task-1","currentStep":3,"totalSteps":3,"stepDescription":"step","stepStatus":"executing"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("c1 got %q, want %q", got, want)
	}
	if got := posts.sent("c9"); len(got) != 0 {
		t.Errorf("another tenant's subscriber got %q, want nothing", got)
	}
	if _, err := store.Connection(ctx, "gone", now); !errors.Is(err, realtime.ErrNotFound) {
		t.Errorf("gone connection: got %v, want ErrNotFound", err)
	}
	subs, err := store.Subscribers(ctx, tenant, realtime.Session(session))
	if err != nil {
		t.Fatal(err)
	}
	if want := []realtime.Subscriber{{ConnectionID: "c1", Live: true}, {ConnectionID: "gone", Live: false}}; !slices.Equal(subs, want) {
		t.Errorf("subscribers got %+v, want %+v", subs, want)
	}
	kept, err := store.Since(ctx, tenant, realtime.Session(session), 1, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].ID != 2 || string(kept[1].Data) != want[2] {
		t.Errorf("kept since 1: got %+v, want ids 2 and 3", kept)
	}
}

// A ticket admits once; an expired or unknown one never; of two concurrent takes one wins.
func TestTicketsAreSingleUse(t *testing.T) {
	store, _ := newStore(t)
	ctx := context.Background()
	now := time.Now()
	owner := realtime.Owner{TenantID: tenant, UserID: "u1"}
	if err := store.PutTicket(ctx, "h1", owner, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := store.PutTicket(ctx, "old", owner, now.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	results := make([]error, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { _, results[i] = store.TakeTicket(ctx, "h1", now) })
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, realtime.ErrTicket):
			t.Errorf("got %v, want nil or ErrTicket", err)
		}
	}
	if wins != 1 {
		t.Errorf("got %d takes of one ticket, want 1", wins)
	}
	for _, hash := range []string{"old", "unknown", "h1"} {
		if _, err := store.TakeTicket(ctx, hash, now); !errors.Is(err, realtime.ErrTicket) {
			t.Errorf("ticket %s: got %v, want ErrTicket", hash, err)
		}
	}
}

// Keep writes more than one batch's 25 items.
func TestKeepManyAndResume(t *testing.T) {
	store, _ := newStore(t)
	ctx := context.Background()
	var msgs []realtime.Message
	for i := int64(1); i <= 30; i++ {
		msgs = append(msgs, realtime.Message{ID: i, Data: []byte(fmt.Sprint(i))})
	}
	if err := store.Keep(ctx, tenant, realtime.Run(session), msgs, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, err := store.Since(ctx, tenant, realtime.Run(session), 27, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != 28 || string(got[2].Data) != "30" {
		t.Errorf("since 27: got %+v, want 28..30", got)
	}
}
