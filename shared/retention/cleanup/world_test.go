package cleanup

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/uuid"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/fakeclock"
	"github.com/screenagent/backend/shared/retention"
	"github.com/screenagent/backend/shared/runs/runsdb"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

const day = 24 * time.Hour

func TestMain(m *testing.M) { dynamotest.Main(m) }

// world is the stores of one test's tables on a fake clock that starts at the real present:
// DynamoDB Local runs TTL, so nothing may look expired to it. Data is aged by moving the clock.
type world struct {
	db     *dynamotest.DB
	clock  *fakeclock.Clock
	t0     time.Time
	tasks  *tasksdb.Store
	chat   *chatdb.Store
	tables Tables
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db := dynamotest.New(t)
	w := &world{db: db, t0: time.Now().UTC().Truncate(time.Second)}
	w.clock = fakeclock.New(w.t0)
	w.tasks = tasksdb.New(db.Client, db.Tables["TasksTable"], tasks.DefaultRetention)
	w.tasks.Now = w.clock.Now
	w.chat = chatdb.New(db.Client, db.Tables["SessionsTable"], db.Tables["MessagesTable"], chat.DefaultRetention())
	w.chat.Now = w.clock.Now
	w.tables = Tables{Tasks: db.Tables["TasksTable"], Sessions: db.Tables["SessionsTable"], Messages: db.Tables["MessagesTable"]}
	return w
}

// cleaner returns a Cleaner over the world's tables on its clock, through client (the world's own
// when nil), with the default policy.
func (w *world) cleaner(client *dynamodb.Client) *Cleaner {
	if client == nil {
		client = w.db.Client
	}
	c := New(client, w.tables, retention.DefaultConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	c.Now = w.clock.Now
	return c
}

// at sets the clock to t0 plus d.
func (w *world) at(d time.Duration) { w.clock.Set(w.t0.Add(d)) }

const tenant, user = "ten-a", "u1"

// task is a task of the world and its session, as a test refers to them.
type task struct {
	id, sessionID string
}

// page is a page large enough to be stored as a snapshot; n makes it distinct.
func page(n int) string {
	return fmt.Sprintf("<main>page %d %s</main>", n, strings.Repeat("<p>row</p>", 200))
}

// step writes one step of a task as the interact engine does, at the clock's time: the step and
// the task's status, the session's messages (and the page's snapshot), a debug entry and an
// idempotency record, in one transaction. A zero task starts a new one.
func (w *world) step(t *testing.T, tk task, status tasks.Status, dom string) task {
	t.Helper()
	ctx := t.Context()
	now := w.clock.Now()
	isNew := tk.id == ""
	var tsk tasks.Task
	var sess chat.Session
	if isNew {
		tsk = tasks.Task{ID: uuid.NewString(), TenantID: tenant, UserID: user, URL: "https://shop.example/cart", Query: "buy socks", Status: tasks.StatusActive}
		s, err := chat.NewSession(tenant, user, tsk.ID, tsk.URL, tsk.Query, now)
		if err != nil {
			t.Fatal(err)
		}
		sess = s
	} else {
		var err error
		if tsk, err = w.tasks.GetTask(ctx, tenant, tk.id); err != nil {
			t.Fatalf("get task: %v", err)
		}
		if sess, err = w.chat.GetSession(ctx, tenant, tk.sessionID); err != nil {
			t.Fatalf("get session: %v", err)
		}
	}
	tsk.SessionID = sess.ID
	items, err := w.tasks.StepItems(tsk, isNew, tasks.Step{Index: tsk.StepCount, Thought: "t", Action: "click(1)"}, status)
	if err != nil {
		t.Fatal(err)
	}
	capture, err := w.chat.CaptureDOM(ctx, tenant, sess.ID, dom)
	if err != nil {
		t.Fatal(err)
	}
	msg := chat.Message{Role: chat.RoleAssistant, Content: "t", ActionString: "click(1)", Status: chat.MessagePending}
	msg.AttachDOM(capture)
	chatStep := chatdb.Step{Messages: []chat.Message{msg}, Snapshot: capture.Snapshot, Status: chat.Status(status), TaskID: tsk.ID}
	var batch chatdb.Batch
	if isNew {
		batch, err = w.chat.CreateWrites(sess, chatStep, now)
	} else {
		batch, err = w.chat.AppendWrites(sess, chatStep, now)
	}
	if err != nil {
		t.Fatal(err)
	}
	items = append(items, dynamo.Items(nil, batch.Items...)...)
	dbg, err := w.tasks.DebugItem(tenant, tasks.DebugEntry{ID: uuid.NewString(), TaskID: tsk.ID, LogType: "step", CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	idem, err := w.tasks.IdempotencyItem(tenant, tasks.IdempotencyRecord{Key: uuid.NewString(), RequestHash: "h", StatusCode: 200, Body: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	items = append(items, dbg, idem)
	if err := dynamo.Write(ctx, w.db.Client, items); err != nil {
		t.Fatalf("store step: %v", err)
	}
	if err := w.chat.AfterCommit(ctx, batch); err != nil {
		t.Fatal(err)
	}
	return task{id: tsk.ID, sessionID: sess.ID}
}

// run writes a task of n steps, the last with the final status, each on its own page.
func (w *world) run(t *testing.T, n int, final tasks.Status) task {
	t.Helper()
	var tk task
	for i := range n {
		status := tasks.StatusActive
		if i == n-1 {
			status = final
		}
		tk = w.step(t, tk, status, page(i))
	}
	return tk
}

// putRun writes an unfinished run of the run API as its store keeps it (runsdb's key names), with
// entries history steps and an idempotency record, expiring at exp.
func (w *world) putRun(t *testing.T, runID string, updated, exp time.Time, entries int) {
	t.Helper()
	pk := runsdb.RunPK(tenant, runID)
	items := []map[string]any{{
		"PK": pk, "SK": runsdb.HeaderSK, "GSI2PK": runsdb.ActiveIndexPartition, "GSI2SK": updated.UTC().Format("2006-01-02T15:04:05.000000000Z") + "#" + tenant + "#" + runID,
		"status": "running", "expiresAt": exp.Unix(),
	}, {"PK": pk, "SK": "IDEM#step#abc", "expiresAt": exp.Unix()}}
	for i := range entries {
		items = append(items, map[string]any{"PK": pk, "SK": fmt.Sprintf("STEP#%06d", i+1), "expiresAt": exp.Add(90 * 24 * time.Hour).Unix()})
	}
	for _, it := range items {
		av, err := attributevalue.MarshalMap(it)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.db.Client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &w.tables.Tasks, Item: av}); err != nil {
			t.Fatal(err)
		}
	}
}

// counts is the number of items of each kind in the world's tables, expired or not.
func (w *world) counts(t *testing.T) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, table := range []string{w.tables.Tasks, w.tables.Sessions, w.tables.Messages} {
		for _, item := range w.scan(t, table) {
			n[kindOf(dynamo.StringOf(item, "SK"))]++
		}
	}
	return n
}

func (w *world) scan(t *testing.T, table string) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(w.db.Client, &dynamodb.ScanInput{TableName: &table, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, page.Items...)
	}
	return items
}

// partition counts the items of a partition by kind, expired or not.
func (w *world) partition(t *testing.T, table, pk string) map[string]int {
	t.Helper()
	n := map[string]int{}
	p := dynamodb.NewQueryPaginator(w.db.Client, partitionQuery(table, pk))
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			n[kindOf(dynamo.StringOf(item, "SK"))]++
		}
	}
	return n
}

func taskPK(id string) string    { return tasksdb.TaskPK(tenant, id) }
func sessionPK(id string) string { return chatdb.SessionPK(tenant, id) }

// expiresAt reads the stored expiry of an item (0 when it does not exist).
func (w *world) expiresAt(t *testing.T, table, pk, sk string) int64 {
	t.Helper()
	out, err := w.db.Client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: &table, Key: dynamo.Key(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return dynamo.Int64Of(out.Item, "expiresAt")
}

// withMiddleware returns a client like the world's with an extra Initialize middleware.
func (w *world) withMiddleware(name string, fn func(context.Context, middleware.InitializeInput, middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error)) *dynamodb.Client {
	return dynamodb.New(w.db.Client.Options(), func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(name, fn), middleware.Before)
		})
	})
}

// diff is what went from before to after, by kind.
func diff(before, after map[string]int) map[string]int {
	d := map[string]int{}
	for k, n := range before {
		if m := n - after[k]; m != 0 {
			d[k] = m
		}
	}
	return d
}

func equalCounts(a, b map[string]int) bool {
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	for k, n := range b {
		if a[k] != n {
			return false
		}
	}
	return true
}
