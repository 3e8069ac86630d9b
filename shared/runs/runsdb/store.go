// Package runsdb stores runs of the run API in the Tasks table.
//
// Items (every key starts with the tenant):
//
//	run header    PK=TENANT#<t>#RUN#<id>  SK=RUN                        GSI2 (only while unfinished): RUNS#active / <updatedAt>#<t>#<id>
//	                                                                    Retention (once finished): EXPIRES#<shard> / <expiresAt>
//	history entry PK=TENANT#<t>#RUN#<id>  SK=STEP#000001                written once, with attribute_not_exists
//	idempotency   PK=TENANT#<t>#RUN#<id>  SK=IDEM#<scope>#<sha256(key)> Retention: EXPIRES#<shard> / <expiresAt>
//
// Every item carries expiresAt (epoch seconds, the table's TTL attribute). An unfinished run
// expires Retention.Idle after its last change, a finished one Retention.Finished after; entries
// outlive their header (Retention.EntryLifetime) and are only read through it. Reads treat an
// item past expiresAt as absent, because TTL deletes lazily. The retention cleanup finds
// unfinished runs through GSI2 and finished runs and idempotency records through the Retention
// index (package expiry), and deletes a run's entries with its header. No write renews an
// expired run: every Save requires the header to be live.
package runsdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/trust/trustdb"
)

// ActiveIndexPartition is the GSI2 partition of unfinished runs, for idle detection.
const ActiveIndexPartition = "RUNS#active"

// HeaderSK is the sort key of a run's header.
const HeaderSK = "RUN"

// Store is the runs in the Tasks table.
type Store struct {
	client    *dynamodb.Client
	table     string
	Now       func() time.Time
	Retention runs.Retention
}

var _ runs.Store = (*Store)(nil)

// New returns a store over the table that keeps runs as r says (runs.DefaultRetention, with the
// deployment's Finished from retention.ParseConfig).
func New(client *dynamodb.Client, table string, r runs.Retention) *Store {
	return &Store{client: client, table: table, Now: time.Now, Retention: r}
}

// RunPK is the partition of a run: its header, entries and idempotency records.
func RunPK(tenantID, runID string) string { return "TENANT#" + tenantID + "#RUN#" + runID }

func stepSK(n int) string { return fmt.Sprintf("STEP#%06d", n) }

func idemSK(scope, key string) string {
	sum := sha256.Sum256([]byte(key))
	return "IDEM#" + scope + "#" + hex.EncodeToString(sum[:])
}

// ItemKind names an item of the store by its sort key, as the retention cleanup counts what it
// deletes: runs, steps (history entries) or idempotencyRecords. ok is false for a key the store
// does not write.
func ItemKind(sk string) (kind string, ok bool) { return itemKinds.Of(sk) }

var itemKinds = dynamo.Kinds{HeaderSK: "runs", "STEP#": "steps", "IDEM#": "idempotencyRecords"}

func (s *Store) now() time.Time { return s.Now().UTC() }

func (s *Store) expired(expiresAt int64) bool { return expiresAt <= s.now().Unix() }

type headerItem struct {
	PK              string                `dynamodbav:"PK"`
	SK              string                `dynamodbav:"SK"`
	GSI2PK          string                `dynamodbav:"GSI2PK,omitempty"`
	GSI2SK          string                `dynamodbav:"GSI2SK,omitempty"`
	RetentionPK     string                `dynamodbav:"RetentionPK,omitempty"`
	RetentionSK     string                `dynamodbav:"RetentionSK,omitempty"`
	RunID           string                `dynamodbav:"runId"`
	TenantID        string                `dynamodbav:"tenantId"`
	UserID          string                `dynamodbav:"userId"`
	Task            string                `dynamodbav:"task"`
	Mode            string                `dynamodbav:"mode"`
	Status          string                `dynamodbav:"status"`
	CurrentStep     int                   `dynamodbav:"currentStep"`
	MaxSteps        int                   `dynamodbav:"maxSteps"`
	PendingQuestion string                `dynamodbav:"pendingQuestion,omitempty"`
	PendingConfirm  string                `dynamodbav:"pendingConfirmation,omitempty"`
	PendingTool     *toolRecord           `dynamodbav:"pendingTool,omitempty"`
	PendingTools    []toolRecord          `dynamodbav:"pendingTools,omitempty"`
	Batch           bool                  `dynamodbav:"batch,omitempty"`
	CurrentSnapshot *snapshotRecord       `dynamodbav:"currentSnapshot,omitempty"`
	Reflections     []reflectionRecord    `dynamodbav:"reflections"`
	Timezone        string                `dynamodbav:"timezone,omitempty"`
	Locale          string                `dynamodbav:"locale,omitempty"`
	LastResult      *resultRecord         `dynamodbav:"lastResult,omitempty"`
	LastAnswer      *userAnswerRecord     `dynamodbav:"lastAnswer,omitempty"`
	Result          string                `dynamodbav:"result,omitempty"`
	Error           string                `dynamodbav:"error,omitempty"`
	SecretNames     []trustdb.NamedSecret `dynamodbav:"secretNames,omitempty"`
	Secrets         trustdb.Secrets       `dynamodbav:"secrets"`
	ApprovedSecret  *toolRecord           `dynamodbav:"approvedSecretType,omitempty"`
	CacheTrail      []byte                `dynamodbav:"cacheTrail,omitempty"`
	CreatedAt       string                `dynamodbav:"createdAt"`
	UpdatedAt       string                `dynamodbav:"updatedAt"`
	ExpiresAt       int64                 `dynamodbav:"expiresAt"`
}

func (s *Store) headerOf(r runs.Run) headerItem {
	it := headerItem{
		PK: RunPK(r.TenantID, r.ID), SK: HeaderSK, RunID: r.ID, TenantID: r.TenantID, UserID: r.UserID,
		Task: r.Task, Mode: string(r.Mode), Status: string(r.Status), CurrentStep: r.CurrentStep, MaxSteps: r.MaxSteps,
		PendingQuestion: r.PendingQuestion, PendingTool: dynamo.Optional(r.PendingTool, toolOf), PendingConfirm: r.PendingConfirmation,
		PendingTools: toolsOf(r.PendingTools), Batch: r.Batch, CurrentSnapshot: dynamo.Optional(r.CurrentSnapshot, snapshotOf),
		Reflections: dynamo.Convert(r.Reflections, reflectionOf), LastResult: dynamo.Optional(r.LastResult, resultOf),
		LastAnswer: dynamo.Optional(r.LastAnswer, userAnswerOf), Result: r.Result, Error: r.Error,
		CacheTrail: r.CacheTrail, Timezone: r.Timezone, Locale: r.Locale,
		SecretNames: trustdb.FromNames(r.SecretNames), Secrets: trustdb.FromSecrets(r.Secrets), ApprovedSecret: dynamo.Optional(r.ApprovedSecretType, toolOf),
		CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano), UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339Nano),
		ExpiresAt: s.Retention.ExpiresAt(r.Status, r.UpdatedAt).Unix(),
	}
	if it.Reflections == nil {
		it.Reflections = []reflectionRecord{}
	}
	if r.Status.Finished() {
		it.RetentionPK, it.RetentionSK = expiry.Keys(it.PK, time.Unix(it.ExpiresAt, 0))
	} else {
		it.GSI2PK = ActiveIndexPartition
		it.GSI2SK = dynamo.Sortable(r.UpdatedAt) + "#" + r.TenantID + "#" + r.ID
	}
	return it
}

func (i headerItem) run() (runs.Run, error) {
	created, err := dynamo.ParseTime(i.CreatedAt)
	if err != nil {
		return runs.Run{}, fmt.Errorf("stored run %s: createdAt: %w", i.RunID, err)
	}
	updated, err := dynamo.ParseTime(i.UpdatedAt)
	if err != nil {
		return runs.Run{}, fmt.Errorf("stored run %s: updatedAt: %w", i.RunID, err)
	}
	return runs.Run{
		ID: i.RunID, TenantID: i.TenantID, UserID: i.UserID, Task: i.Task, Mode: runs.Mode(i.Mode),
		Status: runs.Status(i.Status), CurrentStep: i.CurrentStep, MaxSteps: i.MaxSteps,
		PendingQuestion: i.PendingQuestion, PendingTool: dynamo.Optional(i.PendingTool, toolRecord.tool), PendingConfirmation: i.PendingConfirm,
		PendingTools: tools(i.PendingTools), Batch: i.Batch, CurrentSnapshot: dynamo.Optional(i.CurrentSnapshot, snapshotRecord.snapshot),
		Reflections: dynamo.Convert(i.Reflections, reflectionRecord.reflection), LastResult: dynamo.Optional(i.LastResult, resultRecord.result),
		LastAnswer: dynamo.Optional(i.LastAnswer, userAnswerRecord.userAnswer), Result: i.Result, Error: i.Error,
		CacheTrail: i.CacheTrail, Timezone: i.Timezone, Locale: i.Locale, SecretNames: trustdb.Names(i.SecretNames), Secrets: i.Secrets.Secrets(),
		ApprovedSecretType: dynamo.Optional(i.ApprovedSecret, toolRecord.tool),
		CreatedAt:          created, UpdatedAt: updated,
	}, nil
}

type entryItem struct {
	PK             string            `dynamodbav:"PK"`
	SK             string            `dynamodbav:"SK"`
	StepNumber     int               `dynamodbav:"stepNumber"`
	Action         string            `dynamodbav:"action"`
	Tool           *toolRecord       `dynamodbav:"tool,omitempty"`
	Tools          []toolRecord      `dynamodbav:"tools,omitempty"`
	Question       string            `dynamodbav:"question,omitempty"`
	Answer         string            `dynamodbav:"answer,omitempty"`
	Thought        string            `dynamodbav:"thought,omitempty"`
	Warning        string            `dynamodbav:"warning,omitempty"`
	PreviousResult *resultRecord     `dynamodbav:"previousResult,omitempty"`
	UserAnswer     *userAnswerRecord `dynamodbav:"userAnswer,omitempty"`
	URL            string            `dynamodbav:"url,omitempty"`
	PageHash       string            `dynamodbav:"pageHash,omitempty"`
	Model          string            `dynamodbav:"model,omitempty"`
	Usage          usageRecord       `dynamodbav:"usage"`
	LLMAttempts    int               `dynamodbav:"llmAttempts"`
	LLMLatencyMs   int64             `dynamodbav:"llmLatencyMs"`
	CreatedAt      string            `dynamodbav:"createdAt"`
	ExpiresAt      int64             `dynamodbav:"expiresAt"`
}

// entryOf is the item of run's entry e, written now.
func (s *Store) entryOf(run runs.Run, e runs.Entry, now time.Time) entryItem {
	return entryItem{
		PK: RunPK(run.TenantID, run.ID), SK: stepSK(e.StepNumber), StepNumber: e.StepNumber, Action: e.Action,
		Tool: dynamo.Optional(e.Tool, toolOf), Tools: toolsOf(e.Tools), Question: e.Question, Answer: e.Answer, Thought: e.Thought, Warning: e.Warning,
		PreviousResult: dynamo.Optional(e.PreviousResult, resultOf), UserAnswer: dynamo.Optional(e.UserAnswer, userAnswerOf),
		URL: e.URL, PageHash: e.PageHash, Model: e.Model, Usage: usageRecord(e.Usage), LLMAttempts: e.LLMAttempts, LLMLatencyMs: e.LLMLatency.Milliseconds(),
		CreatedAt: now.Format(time.RFC3339Nano), ExpiresAt: now.Add(s.Retention.EntryLifetime(run.MaxSteps)).Unix(),
	}
}

func (i entryItem) entry() (runs.Entry, error) {
	created, err := dynamo.ParseTime(i.CreatedAt)
	if err != nil {
		return runs.Entry{}, fmt.Errorf("stored entry %d: createdAt: %w", i.StepNumber, err)
	}
	return runs.Entry{
		StepNumber: i.StepNumber, Action: i.Action, Tool: dynamo.Optional(i.Tool, toolRecord.tool), Tools: tools(i.Tools),
		Question: i.Question, Answer: i.Answer, Thought: i.Thought, Warning: i.Warning,
		PreviousResult: dynamo.Optional(i.PreviousResult, resultRecord.result), UserAnswer: dynamo.Optional(i.UserAnswer, userAnswerRecord.userAnswer),
		URL: i.URL, PageHash: i.PageHash, Model: i.Model, Usage: runs.Usage(i.Usage), LLMAttempts: i.LLMAttempts,
		LLMLatency: time.Duration(i.LLMLatencyMs) * time.Millisecond, CreatedAt: created,
	}, nil
}

// Create stores a new run, stamped now.
func (s *Store) Create(ctx context.Context, r runs.Run) (runs.Run, error) {
	r.CreatedAt = s.now()
	r.UpdatedAt = r.CreatedAt
	av, err := attributevalue.MarshalMap(s.headerOf(r))
	if err != nil {
		return runs.Run{}, fmt.Errorf("encode run %s: %w", r.ID, err)
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: av, ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	if dynamo.ConditionFailed(err) {
		return runs.Run{}, fmt.Errorf("create run %s: %w", r.ID, runs.ErrConflict)
	}
	if err != nil {
		return runs.Run{}, fmt.Errorf("create run %s: %w", r.ID, err)
	}
	return r, nil
}

// Get returns the tenant's run; another tenant's or an expired run is runs.ErrNotFound.
func (s *Store) Get(ctx context.Context, tenantID, runID string) (runs.Run, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: dynamo.Key(RunPK(tenantID, runID), HeaderSK), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return runs.Run{}, fmt.Errorf("get run %s: %w", runID, err)
	}
	if out.Item == nil {
		return runs.Run{}, runs.ErrNotFound
	}
	var it headerItem
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return runs.Run{}, fmt.Errorf("decode run %s: %w", runID, err)
	}
	if s.expired(it.ExpiresAt) {
		return runs.Run{}, runs.ErrNotFound
	}
	return it.run()
}

// Entries returns the run's last entries (every entry when last is 0), oldest first.
func (s *Store) Entries(ctx context.Context, tenantID, runID string, last int) ([]runs.Entry, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :step)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: RunPK(tenantID, runID)},
			":step": &types.AttributeValueMemberS{Value: "STEP#"},
		},
		ConsistentRead: aws.Bool(true),
	}
	if last > 0 {
		in.ScanIndexForward, in.Limit = aws.Bool(false), aws.Int32(int32(last))
	}
	var entries []runs.Entry
	p := dynamodb.NewQueryPaginator(s.client, in)
	for p.HasMorePages() && (last == 0 || len(entries) < last) {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("entries of run %s: %w", runID, err)
		}
		for _, raw := range page.Items {
			var it entryItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return nil, fmt.Errorf("decode entry of run %s: %w", runID, err)
			}
			if s.expired(it.ExpiresAt) {
				continue
			}
			e, err := it.entry()
			if err != nil {
				return nil, fmt.Errorf("run %s: %w", runID, err)
			}
			entries = append(entries, e)
		}
	}
	if last > 0 {
		slices.Reverse(entries)
	}
	return entries, nil
}

// Save replaces the header prev with next (stamped now), appends entry and records idem, in one
// transaction. The header's condition (the step count and status that were read, and not
// expired) makes every transition happen at most once, and the entry's attribute_not_exists keeps
// a step from being written twice.
func (s *Store) Save(ctx context.Context, prev, next runs.Run, entry *runs.Entry, idem *runs.IdempotencyRecord) error {
	now := s.now()
	next.UpdatedAt = now
	pk := RunPK(next.TenantID, next.ID)
	var items []dynamo.Item
	if idem != nil {
		// First, so that a concurrent request with the same key is reported as such.
		it, err := s.idemPut(pk, *idem, now)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	header, err := s.headerPut(prev, next, now)
	if err != nil {
		return err
	}
	items = append(items, header)
	if entry != nil {
		it, err := s.entryPut(next, *entry, now)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	// The step is stored: its lease, if it took one, ends with it.
	items = append(items, dynamo.Item{Write: types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(s.table), Key: dynamo.Key(pk, leaseSK),
	}}})
	if err := dynamo.Write(ctx, s.client, items); err != nil {
		return fmt.Errorf("save run %s at step %d: %w", next.ID, next.CurrentStep, err)
	}
	return nil
}

// idemPut records the response for the request's Idempotency-Key, unless another request holds
// the key.
func (s *Store) idemPut(pk string, idem runs.IdempotencyRecord, now time.Time) (dynamo.Item, error) {
	exp := now.Add(s.Retention.Idempotency)
	rpk, rsk := expiry.Keys(pk, exp)
	av, err := attributevalue.MarshalMap(idemItem{
		PK: pk, SK: idemSK(idem.Scope, idem.Key), RetentionPK: rpk, RetentionSK: rsk, RequestHash: idem.RequestHash,
		Body: idem.Body, CreatedAt: now.Format(time.RFC3339Nano), ExpiresAt: exp.Unix(),
	})
	if err != nil {
		return dynamo.Item{}, fmt.Errorf("encode idempotency record: %w", err)
	}
	return dynamo.Item{
		Write: types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.table), Item: av,
			// An expired record may be replaced: TTL has just not removed it yet.
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR expiresAt <= :now"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":now": dynamo.Num(now.Unix())},
		}},
		OnConditionFailed: runs.ErrIdempotencyRace,
	}, nil
}

// headerPut replaces the run's header, on condition that it is still prev and not expired.
func (s *Store) headerPut(prev, next runs.Run, now time.Time) (dynamo.Item, error) {
	header, err := attributevalue.MarshalMap(s.headerOf(next))
	if err != nil {
		return dynamo.Item{}, fmt.Errorf("encode run %s: %w", next.ID, err)
	}
	return dynamo.Item{
		Write: types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.table), Item: header,
			ConditionExpression:      aws.String("currentStep = :step AND #status = :status AND expiresAt > :now"),
			ExpressionAttributeNames: map[string]string{"#status": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":step":   dynamo.Num(int64(prev.CurrentStep)),
				":status": &types.AttributeValueMemberS{Value: string(prev.Status)},
				":now":    dynamo.Num(now.Unix()),
			},
		}},
		OnConditionFailed: runs.ErrConflict,
	}, nil
}

// entryPut appends the step's entry, which no step may have written before.
func (s *Store) entryPut(next runs.Run, entry runs.Entry, now time.Time) (dynamo.Item, error) {
	av, err := attributevalue.MarshalMap(s.entryOf(next, entry, now))
	if err != nil {
		return dynamo.Item{}, fmt.Errorf("encode step %d of run %s: %w", entry.StepNumber, next.ID, err)
	}
	return dynamo.Item{
		Write: types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.table), Item: av, ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}},
		OnConditionFailed: runs.ErrConflict,
	}, nil
}

// leaseSK is the sort key of a run's lease, an item of its own: the header holds the current
// snapshot and the reflections (tens of KB), which a lease on it would rewrite each step.
const leaseSK = "LEASE"

// Lease holds the run for leaseID until until: a concurrent step gets runs.ErrConflict at once
// instead of paying for an LLM call it could not store. The step's Save deletes the lease;
// Release ends it otherwise. A step whose read of the run predates another's Save can still take
// the lease after it; its own Save then fails on the header's condition, as without a lease.
func (s *Store) Lease(ctx context.Context, run runs.Run, leaseID string, until time.Time) error {
	if err := s.lease(run.TenantID, run.ID, leaseID, until).Take(ctx, s.client, s.now(), dynamo.Condition{}, runs.ErrConflict); err != nil {
		return fmt.Errorf("lease run %s: %w", run.ID, err)
	}
	return nil
}

// Release ends the lease leaseID holds on the run, if it still does.
func (s *Store) Release(ctx context.Context, tenantID, runID, leaseID string) error {
	if err := s.lease(tenantID, runID, leaseID, time.Time{}).Release(ctx, s.client); err != nil {
		return fmt.Errorf("release run %s: %w", runID, err)
	}
	return nil
}

func (s *Store) lease(tenantID, runID, leaseID string, until time.Time) dynamo.Lease {
	return dynamo.Lease{Table: s.table, Key: dynamo.Key(RunPK(tenantID, runID), leaseSK), ID: leaseID, Until: until, Own: true}
}

type idemItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	RetentionPK string `dynamodbav:"RetentionPK"`
	RetentionSK string `dynamodbav:"RetentionSK"`
	RequestHash string `dynamodbav:"requestHash"`
	Body        []byte `dynamodbav:"body"`
	CreatedAt   string `dynamodbav:"createdAt"`
	ExpiresAt   int64  `dynamodbav:"expiresAt"`
}

// GetIdempotency returns the response recorded under the run, scope and key, or runs.ErrNotFound.
func (s *Store) GetIdempotency(ctx context.Context, tenantID, runID, scope, key string) (runs.IdempotencyRecord, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: dynamo.Key(RunPK(tenantID, runID), idemSK(scope, key)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return runs.IdempotencyRecord{}, fmt.Errorf("get idempotency record: %w", err)
	}
	if out.Item == nil {
		return runs.IdempotencyRecord{}, runs.ErrNotFound
	}
	var it idemItem
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return runs.IdempotencyRecord{}, fmt.Errorf("decode idempotency record: %w", err)
	}
	if s.expired(it.ExpiresAt) {
		return runs.IdempotencyRecord{}, runs.ErrNotFound
	}
	return runs.IdempotencyRecord{Scope: scope, Key: key, RequestHash: it.RequestHash, Body: it.Body}, nil
}
