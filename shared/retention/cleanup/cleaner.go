package cleanup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/runs/runsdb"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// DB is the part of the DynamoDB client the cleanup uses.
type DB interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Sessions is what the cleanup needs of the chat store: a session is interrupted through the
// store's own conditional write, which a concurrent step makes fail.
type Sessions interface {
	GetSession(ctx context.Context, tenantID, sessionID string) (chat.Session, error)
	StatusWrites(sess chat.Session, status chat.Status, now time.Time) (chatdb.Batch, error)
	Conflict(err error, items []types.TransactWriteItem) error
	AfterCommit(ctx context.Context, b chatdb.Batch) error
}

// Tables names the tables the cleanup works on.
type Tables struct {
	Tasks, Sessions, Messages string
}

// DefaultReserve is the time a run keeps before its deadline.
const DefaultReserve = 10 * time.Second

// Cleaner is the retention cleanup. One Run:
//
//  1. interrupts active tasks (GSI2 TASKS#active) and sessions (Retention index SESSIONS#active)
//     idle for Config.IdleAfter, giving them the interrupted retention, with a write conditioned
//     on the state it read, so that a step that lands meanwhile wins; and deletes unfinished runs
//     (GSI2 RUNS#active) that have expired (a run has no interrupted state: idle, it expires);
//  2. deletes what has expired, found in the Retention index of each table (package expiry): a
//     task, run or session with every item of its partition (steps, debug entries, records,
//     messages, snapshots), and items with a retention of their own.
//
// It starts no work within Reserve of the context's deadline; what is left is still in the
// indexes, where the next run finds it, so there is no other checkpoint to keep. New sets every
// field; tests replace the clock.
type Cleaner struct {
	DB       DB
	Sessions Sessions
	Tables   Tables
	Config   retention.Config
	// Reserve is kept before the context's deadline to report.
	Reserve time.Duration
	// Now is the clock of retention decisions and of the time budget.
	Now    func() time.Time
	Logger *slog.Logger
}

// New returns a Cleaner over the tables with the policy, the system clock and DefaultReserve.
func New(client *dynamodb.Client, t Tables, cfg retention.Config, logger *slog.Logger) *Cleaner {
	return &Cleaner{
		DB: client, Sessions: chatdb.New(client, t.Sessions, t.Messages, cfg.Chat), Tables: t, Config: cfg,
		Reserve: DefaultReserve, Now: time.Now, Logger: logger,
	}
}

// gsi2 is the index of the Tasks table where the stores file active tasks and unfinished runs
// (tasksdb.ActiveIndexPartition, runsdb.ActiveIndexPartition).
const gsi2 = "GSI2"

// Run does one cleanup within the context's deadline and returns what it did.
func (c *Cleaner) Run(ctx context.Context) Stats {
	started := time.Now()
	r := &run{c: c, now: c.Now().UTC(), stats: newStats()}
	r.interruptTasks(ctx)
	r.deleteExpiredRuns(ctx)
	r.interruptSessions(ctx)
	r.deleteExpired(ctx, c.Tables.Tasks, map[string]string{tasksdb.HeaderSK: c.Tables.Tasks, runsdb.HeaderSK: c.Tables.Tasks})
	r.deleteExpired(ctx, c.Tables.Sessions, map[string]string{chatdb.SessionSK: c.Tables.Messages})
	r.deleteExpired(ctx, c.Tables.Messages, nil)
	r.stats.Complete = !r.stopped
	r.stats.DurationMs = time.Since(started).Milliseconds()
	return r.stats
}

// run is the state of one Run. now is fixed at its start, so that every decision of a run is
// made against the same present.
type run struct {
	c       *Cleaner
	now     time.Time
	stats   Stats
	stopped bool
}

// more reports whether there is time to start another piece of work.
func (r *run) more(ctx context.Context) bool {
	if r.stopped {
		return false
	}
	if ctx.Err() != nil {
		r.stopped = true
		return false
	}
	if d, ok := ctx.Deadline(); ok && !r.c.Now().Add(r.c.Reserve).Before(d) {
		r.stopped = true
	}
	return !r.stopped
}

// fail counts and logs a failure, unless it only says the run's time is up.
func (r *run) fail(ctx context.Context, err error, msg string, attrs ...any) {
	if ctx.Err() != nil {
		r.stopped = true
		return
	}
	r.stats.Errors++
	r.c.Logger.WarnContext(ctx, msg, append(attrs, "error", err.Error())...)
}

func (r *run) nowEpoch() types.AttributeValue { return dynamo.Num(r.now.Unix()) }

// interruptTasks interrupts the active tasks idle past the threshold, and deletes those that
// expired while active (only when the cleanup has not run for their whole provisional lifetime).
func (r *run) interruptTasks(ctx context.Context) {
	cutoff := r.now.Add(-r.c.Config.IdleAfter).Format(expiry.TimeLayout)
	r.eachPage(ctx, &dynamodb.QueryInput{
		TableName:              &r.c.Tables.Tasks,
		IndexName:              aws.String(gsi2),
		KeyConditionExpression: aws.String("GSI2PK = :p AND GSI2SK < :cutoff"),
		ProjectionExpression:   aws.String("PK, SK, GSI2SK, expiresAt"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": dynamo.Str(tasksdb.ActiveIndexPartition), ":cutoff": dynamo.Str(cutoff),
		},
	}, func(it indexEntry) {
		if it.ExpiresAt <= r.now.Unix() {
			r.deleteParent(ctx, r.c.Tables.Tasks, it.PK, it.SK, r.c.Tables.Tasks)
			return
		}
		r.interruptTask(ctx, it)
	})
}

// deleteExpiredRuns deletes the unfinished runs that have expired. Their lifetime is the run
// store's: the partition is read whole, and it holds only runs changed lately or expired since.
func (r *run) deleteExpiredRuns(ctx context.Context) {
	r.eachPage(ctx, &dynamodb.QueryInput{
		TableName:                 &r.c.Tables.Tasks,
		IndexName:                 aws.String(gsi2),
		KeyConditionExpression:    aws.String("GSI2PK = :p"),
		FilterExpression:          aws.String("expiresAt <= :now"),
		ProjectionExpression:      aws.String("PK, SK, expiresAt"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": dynamo.Str(runsdb.ActiveIndexPartition), ":now": r.nowEpoch()},
	}, func(it indexEntry) {
		r.deleteParent(ctx, r.c.Tables.Tasks, it.PK, it.SK, r.c.Tables.Tasks)
	})
}

// interruptTask marks an idle task interrupted with the interrupted retention, and files it in
// the Retention index. The condition is the index entry as read: a step rewrites the entry's
// sort key, so a step that lands between the read and this write makes it fail, and the step wins.
func (r *run) interruptTask(ctx context.Context, it indexEntry) {
	exp := r.now.Add(r.c.Config.Tasks.Interrupted)
	rpk, rsk := expiry.Keys(it.PK, exp)
	_, err := r.c.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &r.c.Tables.Tasks,
		Key:                      dynamo.Key(it.PK, it.SK),
		UpdateExpression:         aws.String("SET #status = :interrupted, expiresAt = :exp, RetentionPK = :rpk, RetentionSK = :rsk REMOVE GSI2PK, GSI2SK"),
		ConditionExpression:      aws.String("GSI2PK = :active AND GSI2SK = :seen AND expiresAt > :now"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":interrupted": dynamo.Str(string(tasks.StatusInterrupted)),
			":exp":         dynamo.Num(exp.Unix()),
			":rpk":         dynamo.Str(rpk),
			":rsk":         dynamo.Str(rsk),
			":active":      dynamo.Str(tasksdb.ActiveIndexPartition),
			":seen":        dynamo.Str(it.GSI2SK),
			":now":         r.nowEpoch(),
		},
	})
	if dynamo.ConditionFailed(err) {
		return
	}
	if err != nil {
		r.fail(ctx, err, "interrupt task", "pk", it.PK)
		return
	}
	r.stats.Interrupted["tasks"]++
	r.alignChildren(ctx, it.PK, it.SK, exp)
}

// alignChildren brings the expiry of the items of an interrupted task's partition down to the
// task's, so that they go with it even when TTL, not the cleanup, deletes the task. It runs to
// the end whatever the budget: it is bounded by the task's steps.
func (r *run) alignChildren(ctx context.Context, pk, headerSK string, exp time.Time) {
	in := partitionQuery(r.c.Tables.Tasks, pk)
	in.ProjectionExpression = aws.String("PK, SK, expiresAt, RetentionPK")
	p := dynamodb.NewQueryPaginator(r.c.DB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			r.fail(ctx, err, "align retention with the task", "pk", pk)
			return
		}
		for _, raw := range page.Items {
			sk := dynamo.StringOf(raw, "SK")
			if sk == headerSK || dynamo.Int64Of(raw, "expiresAt") <= exp.Unix() {
				continue
			}
			update := "SET expiresAt = :exp"
			values := map[string]types.AttributeValue{":exp": dynamo.Num(exp.Unix())}
			if dynamo.StringOf(raw, "RetentionPK") != "" {
				update += ", RetentionSK = :rsk"
				values[":rsk"] = dynamo.Str(expiry.SortKey(exp))
			}
			_, err := r.c.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 &r.c.Tables.Tasks,
				Key:                       dynamo.Key(pk, sk),
				UpdateExpression:          aws.String(update),
				ConditionExpression:       aws.String("attribute_exists(PK) AND expiresAt > :exp"),
				ExpressionAttributeValues: values,
			})
			if err != nil && !dynamo.ConditionFailed(err) {
				r.fail(ctx, err, "align retention with the task", "pk", pk, "sk", sk)
			}
		}
	}
}

// interruptSessions interrupts the active sessions idle past the threshold through the chat
// store, and deletes those that expired while active.
func (r *run) interruptSessions(ctx context.Context) {
	cutoff := r.now.Add(-r.c.Config.IdleAfter)
	r.eachPage(ctx, &dynamodb.QueryInput{
		TableName:              &r.c.Tables.Sessions,
		IndexName:              aws.String(expiry.Index),
		KeyConditionExpression: aws.String("RetentionPK = :p AND RetentionSK < :cutoff"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": dynamo.Str(chatdb.ActivePartition), ":cutoff": dynamo.Str(cutoff.Format(expiry.TimeLayout)),
		},
	}, func(it indexEntry) {
		tenantID, sessionID, ok := chatdb.ParseSessionPK(it.PK)
		if !ok {
			r.fail(ctx, fmt.Errorf("key %q is not a session's", it.PK), "interrupt session", "pk", it.PK)
			return
		}
		sess, err := r.c.Sessions.GetSession(ctx, tenantID, sessionID)
		if errors.Is(err, chat.ErrNotFound) {
			// Gone, or expired while active: only the latter is left to delete.
			r.deleteParent(ctx, r.c.Tables.Sessions, it.PK, it.SK, r.c.Tables.Messages)
			return
		}
		if err != nil {
			r.fail(ctx, err, "interrupt session", "pk", it.PK)
			return
		}
		// The index lags the table: the session itself decides.
		if sess.Status != chat.StatusActive || !sess.UpdatedAt.Before(cutoff) {
			return
		}
		b, err := r.c.Sessions.StatusWrites(sess, chat.StatusInterrupted, r.now)
		if err != nil {
			r.fail(ctx, err, "interrupt session", "pk", it.PK)
			return
		}
		_, err = r.c.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: b.Items, ClientRequestToken: aws.String(uuid.NewString()),
		})
		if err != nil && r.c.Sessions.Conflict(err, b.Items) != nil {
			return
		}
		if err != nil {
			r.fail(ctx, err, "interrupt session", "pk", it.PK)
			return
		}
		r.stats.Interrupted["sessions"]++
		if err := r.c.Sessions.AfterCommit(ctx, b); err != nil {
			r.fail(ctx, err, "align retention with the session", "pk", it.PK)
		}
	})
}

// deleteExpired deletes what has expired in a table's Retention index: parents (an item whose
// sort key is in parents, which maps it to the table of its partition's other items) with their
// partition, other items on their own.
func (r *run) deleteExpired(ctx context.Context, table string, parents map[string]string) {
	for shard := range expiry.Shards {
		r.eachPage(ctx, &dynamodb.QueryInput{
			TableName:              &table,
			IndexName:              aws.String(expiry.Index),
			KeyConditionExpression: aws.String("RetentionPK = :p AND RetentionSK <= :now"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":p": dynamo.Str(expiry.Partition(shard)), ":now": dynamo.Str(expiry.SortKey(r.now)),
			},
		}, func(it indexEntry) {
			if children, ok := parents[it.SK]; ok {
				r.deleteParent(ctx, table, it.PK, it.SK, children)
				return
			}
			r.deleteItem(ctx, table, it.PK, it.SK)
		})
	}
}

// deleteItem deletes one item if it has expired: the index may be behind a rewrite that renewed it.
func (r *run) deleteItem(ctx context.Context, table, pk, sk string) {
	_, err := r.c.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &table,
		Key:                       dynamo.Key(pk, sk),
		ConditionExpression:       aws.String("expiresAt <= :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": r.nowEpoch()},
	})
	switch {
	case dynamo.ConditionFailed(err):
	case err != nil:
		r.fail(ctx, err, "delete expired item", "table", table, "pk", pk, "sk", sk)
	default:
		r.stats.RecordsDeleted[kindOf(sk)]++
	}
}

// deleteParent deletes an expired task, run or session with its partition: first every other
// item of the partition (in childTable), then, conditionally, the parent itself, so that a run
// cut short leaves the parent to be found again. Deleting children without conditions is safe
// once the parent has expired: no store writes into the partition of an expired parent.
func (r *run) deleteParent(ctx context.Context, table, pk, sk, childTable string) {
	out, err := r.c.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &table, Key: dynamo.Key(pk, sk), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("expiresAt"),
	})
	if err != nil {
		r.fail(ctx, err, "read expired item", "table", table, "pk", pk)
		return
	}
	if out.Item == nil || dynamo.Int64Of(out.Item, "expiresAt") > r.now.Unix() {
		return
	}
	if !r.deletePartition(ctx, childTable, pk, func(childSK string) bool { return childTable == table && childSK == sk }) {
		return
	}
	r.deleteItem(ctx, table, pk, sk)
}

// deletePartition deletes every item of a partition but those skip names, in batches, and
// reports whether it got through all of them.
func (r *run) deletePartition(ctx context.Context, table, pk string, skip func(sk string) bool) bool {
	in := partitionQuery(table, pk)
	in.ProjectionExpression = aws.String("PK, SK")
	p := dynamodb.NewQueryPaginator(r.c.DB, in)
	var pending []map[string]types.AttributeValue
	flush := func() bool {
		for len(pending) > 0 {
			if !r.more(ctx) {
				return false
			}
			n := min(len(pending), batchSize)
			deleted, err := batchDelete(ctx, r.c.DB, table, pending[:n])
			for _, k := range deleted {
				r.stats.RecordsDeleted[kindOf(dynamo.StringOf(k, "SK"))]++
			}
			if err != nil {
				r.fail(ctx, err, "delete items of an expired partition", "table", table, "pk", pk)
				return false
			}
			pending = pending[n:]
		}
		return true
	}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			r.fail(ctx, err, "read an expired partition", "table", table, "pk", pk)
			return false
		}
		for _, item := range page.Items {
			if !skip(dynamo.StringOf(item, "SK")) {
				pending = append(pending, item)
			}
		}
		for len(pending) >= batchSize {
			if !flush() {
				return false
			}
		}
	}
	return flush()
}

// indexEntry is an index item as the passes read it.
type indexEntry struct {
	PK, SK    string
	GSI2SK    string
	ExpiresAt int64
}

// eachPage runs fn on every entry a query returns, a page at a time, as long as the budget lasts.
func (r *run) eachPage(ctx context.Context, in *dynamodb.QueryInput, fn func(indexEntry)) {
	in.Limit = aws.Int32(pageSize)
	p := dynamodb.NewQueryPaginator(r.c.DB, in)
	for p.HasMorePages() && r.more(ctx) {
		page, err := p.NextPage(ctx)
		if err != nil {
			r.fail(ctx, err, "read index", "table", aws.ToString(in.TableName), "index", aws.ToString(in.IndexName))
			return
		}
		for _, raw := range page.Items {
			if !r.more(ctx) {
				return
			}
			fn(indexEntry{
				PK: dynamo.StringOf(raw, "PK"), SK: dynamo.StringOf(raw, "SK"), GSI2SK: dynamo.StringOf(raw, "GSI2SK"),
				ExpiresAt: dynamo.Int64Of(raw, "expiresAt"),
			})
		}
	}
}

// pageSize bounds an index read, so that a run stopped by its deadline has read little it did
// not use.
const pageSize = 100

func partitionQuery(table, pk string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 &table,
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": dynamo.Str(pk)},
		ConsistentRead:            aws.Bool(true),
	}
}
