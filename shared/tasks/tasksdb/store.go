// Package tasksdb stores tasks in the Tasks table.
//
// Items (every key starts with the tenant):
//
//	task header   PK=TENANT#<t>#TASK#<id>   SK=TASK               GSI2 (only while active): TASKS#active / <updatedAt>#<t>#<id>
//	                                                              Retention (once ended): EXPIRES#<shard> / <expiresAt>
//	step          PK=TENANT#<t>#TASK#<id>   SK=STEP#000012        written with attribute_not_exists
//	debug entry   PK=TENANT#<t>#TASK#<id>   SK=DEBUG#<ts>#<id>    GSI1: TENANT#<t>#DEBUG / <ts>#<id> (tenant-wide, newest first)
//	                                                              Retention: EXPIRES#<shard> / <expiresAt>
//	verification  PK=TENANT#<t>#TASK#<id>   SK=VERIFICATION#000012
//	                                                              Retention: EXPIRES#<shard> / <expiresAt>
//	correction    PK=TENANT#<t>#TASK#<id>   SK=CORRECTION#000012#<ts>
//	                                                              Retention: EXPIRES#<shard> / <expiresAt>
//	idempotency   PK=TENANT#<t>#IDEM#<sha256(key)>  SK=IDEM       Retention: EXPIRES#<shard> / <expiresAt>
//
// A step in progress holds its task with a lease (leaseId, leaseUntil on the header; package
// dynamo) and its Idempotency-Key with a pending record (pending, claimId, expiring with the claim),
// so that concurrent requests neither decide the same step twice nor pay for an LLM call that
// could never be stored. The step's commit replaces both.
//
// Every item carries expiresAt (epoch seconds, the table's TTL attribute); reads treat an item
// past it as absent because TTL deletes lazily. Items with a retention of their own are in the
// Retention index (package expiry), where the cleanup finds them; steps are deleted with their
// task, and verification and correction records with their task if it goes before them. No
// write renews an expired task: a step (and the records written in its transaction) and FailTask
// require the header to be live, so the cleanup can delete an expired task's partition without
// racing a writer.
package tasksdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/tasks"
)

// Store is the Tasks table.
type Store struct {
	client    *dynamodb.Client
	table     string
	Now       func() time.Time
	Retention tasks.Retention
}

// New returns a store over the table that keeps what it writes as r says (tasks.DefaultRetention,
// or the deployment's policy from retention.ParseConfig): a writer cannot forget the policy.
func New(client *dynamodb.Client, table string, r tasks.Retention) *Store {
	return &Store{client: client, table: table, Now: time.Now, Retention: r}
}

// ActiveIndexPartition is the GSI2 partition of active tasks, for idle detection.
const ActiveIndexPartition = "TASKS#active"

// HeaderSK is the sort key of a task's header.
const HeaderSK = "TASK"

// TaskPK is the partition of a task: its header, steps, debug entries and records.
func TaskPK(tenantID, taskID string) string { return "TENANT#" + tenantID + "#TASK#" + taskID }
func stepSK(i int) string                   { return fmt.Sprintf("STEP#%06d", i) }
func debugPartition(tenantID string) string { return "TENANT#" + tenantID + "#DEBUG" }
func idemPK(tenantID, key string) string {
	sum := sha256.Sum256([]byte(key))
	return "TENANT#" + tenantID + "#IDEM#" + hex.EncodeToString(sum[:])
}

// ItemKind names an item of the store by its sort key, as the retention cleanup counts what it
// deletes: tasks, steps, debugEntries, idempotencyRecords, verificationRecords or
// correctionRecords. ok is false for a key the store does not write.
func ItemKind(sk string) (kind string, ok bool) { return itemKinds.Of(sk) }

var itemKinds = dynamo.Kinds{
	HeaderSK: "tasks", "STEP#": "steps", "DEBUG#": "debugEntries", "IDEM": "idempotencyRecords",
	verificationPrefix: "verificationRecords", correctionPrefix: "correctionRecords",
}

type taskItem struct {
	PK            string       `dynamodbav:"PK"`
	SK            string       `dynamodbav:"SK"`
	GSI2PK        string       `dynamodbav:"GSI2PK,omitempty"`
	GSI2SK        string       `dynamodbav:"GSI2SK,omitempty"`
	RetentionPK   string       `dynamodbav:"RetentionPK,omitempty"`
	RetentionSK   string       `dynamodbav:"RetentionSK,omitempty"`
	TaskID        string       `dynamodbav:"taskId"`
	TenantID      string       `dynamodbav:"tenantId"`
	UserID        string       `dynamodbav:"userId"`
	SessionID     string       `dynamodbav:"sessionId"`
	URL           string       `dynamodbav:"url"`
	Query         string       `dynamodbav:"query"`
	Status        string       `dynamodbav:"status"`
	StepCount     int          `dynamodbav:"stepCount"`
	FailureReason string       `dynamodbav:"failureReason,omitempty"`
	Result        string       `dynamodbav:"result,omitempty"`
	Memory        memoryRecord `dynamodbav:"memory"`
	CreatedAt     string       `dynamodbav:"createdAt"`
	UpdatedAt     string       `dynamodbav:"updatedAt"`
	ExpiresAt     int64        `dynamodbav:"expiresAt"`
}

func (i taskItem) task() (tasks.Task, error) {
	created, err := dynamo.ParseTime(i.CreatedAt)
	if err != nil {
		return tasks.Task{}, fmt.Errorf("stored task %s: createdAt: %w", i.TaskID, err)
	}
	updated, err := dynamo.ParseTime(i.UpdatedAt)
	if err != nil {
		return tasks.Task{}, fmt.Errorf("stored task %s: updatedAt: %w", i.TaskID, err)
	}
	return tasks.Task{
		ID: i.TaskID, TenantID: i.TenantID, UserID: i.UserID, SessionID: i.SessionID, URL: i.URL, Query: i.Query,
		Status: tasks.Status(i.Status), StepCount: i.StepCount, FailureReason: i.FailureReason, Result: i.Result, Memory: i.Memory.memory(),
		CreatedAt: created, UpdatedAt: updated,
	}, nil
}

type stepItem struct {
	PK             string        `dynamodbav:"PK"`
	SK             string        `dynamodbav:"SK"`
	StepIndex      int           `dynamodbav:"stepIndex"`
	Thought        string        `dynamodbav:"thought"`
	Action         string        `dynamodbav:"action"`
	Actions        []string      `dynamodbav:"actions,omitempty"`
	ModelAction    string        `dynamodbav:"modelAction,omitempty"`
	PreviousReport *reportRecord `dynamodbav:"previousReport,omitempty"`
	UserMessage    string        `dynamodbav:"userMessage,omitempty"`
	URL            string        `dynamodbav:"url"`
	Usage          usageRecord   `dynamodbav:"usage"`
	Model          string        `dynamodbav:"model,omitempty"`
	LLMAttempts    int           `dynamodbav:"llmAttempts"`
	LLMLatencyMs   int64         `dynamodbav:"llmLatencyMs"`
	DurationMs     int64         `dynamodbav:"durationMs"`
	CreatedAt      string        `dynamodbav:"createdAt"`
	ExpiresAt      int64         `dynamodbav:"expiresAt"`
}

func (i stepItem) step() (tasks.Step, error) {
	created, err := dynamo.ParseTime(i.CreatedAt)
	if err != nil {
		return tasks.Step{}, fmt.Errorf("stored step %d: createdAt: %w", i.StepIndex, err)
	}
	return tasks.Step{
		Index: i.StepIndex, Thought: i.Thought, Action: i.Action, Actions: i.Actions, ModelAction: i.ModelAction, PreviousReport: dynamo.Optional(i.PreviousReport, reportRecord.report),
		UserMessage: i.UserMessage, URL: i.URL, Usage: tasks.Usage(i.Usage), Model: i.Model, LLMAttempts: i.LLMAttempts,
		LLMLatency: time.Duration(i.LLMLatencyMs) * time.Millisecond, Duration: time.Duration(i.DurationMs) * time.Millisecond,
		CreatedAt: created,
	}, nil
}

func (s *Store) now() time.Time { return s.Now().UTC() }

func (s *Store) expired(expiresAt int64) bool {
	return expiresAt > 0 && expiresAt <= s.now().Unix()
}

// GetTask returns the tenant's task; another tenant's or an expired task is ErrNotFound.
func (s *Store) GetTask(ctx context.Context, tenantID, taskID string) (tasks.Task, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: dynamo.Key(TaskPK(tenantID, taskID), HeaderSK), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return tasks.Task{}, fmt.Errorf("get task %s: %w", taskID, err)
	}
	var it taskItem
	if out.Item == nil {
		return tasks.Task{}, tasks.ErrNotFound
	}
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return tasks.Task{}, fmt.Errorf("decode task %s: %w", taskID, err)
	}
	if s.expired(it.ExpiresAt) {
		return tasks.Task{}, tasks.ErrNotFound
	}
	return it.task()
}

// Steps returns the task's steps in order.
func (s *Store) Steps(ctx context.Context, tenantID, taskID string) ([]tasks.Step, error) {
	items, err := s.queryPrefix(ctx, TaskPK(tenantID, taskID), "STEP#")
	if err != nil {
		return nil, fmt.Errorf("steps of task %s: %w", taskID, err)
	}
	steps := make([]tasks.Step, 0, len(items))
	for _, raw := range items {
		var it stepItem
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return nil, fmt.Errorf("decode step of task %s: %w", taskID, err)
		}
		if s.expired(it.ExpiresAt) {
			continue
		}
		step, err := it.step()
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", taskID, err)
		}
		steps = append(steps, step)
	}
	return steps, nil
}

func (s *Store) queryPrefix(ctx context.Context, pk, skPrefix string) ([]map[string]types.AttributeValue, error) {
	return dynamo.QueryAll(ctx, s.client, &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: pk},
			":sk": &types.AttributeValueMemberS{Value: skPrefix},
		},
		ConsistentRead: aws.Bool(true),
	})
}

// StepItems returns the writes that append step to task and move the task to status, for one
// transaction with the chat writes. task is as it was read (StepCount is the expected count);
// isNew creates the header instead, so a first step whose transaction fails leaves no task. A
// concurrent step makes the header's condition fail with tasks.ErrConflict.
func (s *Store) StepItems(task tasks.Task, isNew bool, step tasks.Step, status tasks.Status) ([]dynamo.Item, error) {
	now := s.now()
	if step.Index != task.StepCount {
		return nil, fmt.Errorf("step index %d does not follow step count %d", step.Index, task.StepCount)
	}
	expires := now.Add(s.Retention.For(status)).Unix()
	header := taskItem{
		PK: TaskPK(task.TenantID, task.ID), SK: HeaderSK,
		TaskID: task.ID, TenantID: task.TenantID, UserID: task.UserID, SessionID: task.SessionID, URL: task.URL, Query: task.Query,
		Status: string(status), StepCount: task.StepCount + 1, FailureReason: task.FailureReason, Result: task.Result, Memory: memoryOf(task.Memory),
		CreatedAt: now.Format(time.RFC3339Nano), UpdatedAt: now.Format(time.RFC3339Nano), ExpiresAt: expires,
	}
	if !task.CreatedAt.IsZero() {
		header.CreatedAt = task.CreatedAt.UTC().Format(time.RFC3339Nano)
	}
	if status == tasks.StatusActive {
		header.GSI2PK, header.GSI2SK = ActiveIndexPartition, dynamo.Sortable(now)+"#"+task.TenantID+"#"+task.ID
	} else {
		header.RetentionPK, header.RetentionSK = expiry.Keys(header.PK, time.Unix(expires, 0))
	}
	headerAV, err := attributevalue.MarshalMap(header)
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", task.ID, err)
	}
	put := &types.Put{TableName: aws.String(s.table), Item: headerAV}
	if isNew {
		put.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		put.ConditionExpression = aws.String("stepCount = :expected AND #status = :active AND expiresAt > :now")
		put.ExpressionAttributeNames = map[string]string{"#status": "status"}
		put.ExpressionAttributeValues = map[string]types.AttributeValue{
			":expected": &types.AttributeValueMemberN{Value: fmt.Sprint(task.StepCount)},
			":active":   &types.AttributeValueMemberS{Value: string(tasks.StatusActive)},
			":now":      &types.AttributeValueMemberN{Value: fmt.Sprint(now.Unix())},
		}
	}
	stepAV, err := attributevalue.MarshalMap(stepItem{
		PK: header.PK, SK: stepSK(step.Index), StepIndex: step.Index, Thought: step.Thought, Action: step.Action, Actions: step.Actions,
		ModelAction: step.ModelAction, PreviousReport: dynamo.Optional(step.PreviousReport, reportOf), UserMessage: step.UserMessage, URL: step.URL, Usage: usageRecord(step.Usage), Model: step.Model,
		LLMAttempts: step.LLMAttempts, LLMLatencyMs: step.LLMLatency.Milliseconds(), DurationMs: step.Duration.Milliseconds(),
		CreatedAt: now.Format(time.RFC3339Nano), ExpiresAt: expires,
	})
	if err != nil {
		return nil, fmt.Errorf("encode step %d: %w", step.Index, err)
	}
	return []dynamo.Item{
		{Write: types.TransactWriteItem{Put: put}, OnConditionFailed: tasks.ErrConflict},
		{Write: types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.table), Item: stepAV, ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}}, OnConditionFailed: tasks.ErrConflict},
	}, nil
}

// FailTask marks an active, live task failed with a reason (e.g. too many steps). The condition
// on the step count makes it lose to a concurrent step rather than overwrite it.
func (s *Store) FailTask(ctx context.Context, task tasks.Task, reason string) error {
	now := s.now()
	pk := TaskPK(task.TenantID, task.ID)
	exp := now.Add(s.Retention.Finished)
	retentionPK, retentionSK := expiry.Keys(pk, exp)
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table),
		Key:       dynamo.Key(pk, HeaderSK),
		UpdateExpression: aws.String("SET #status = :failed, failureReason = :reason, updatedAt = :now, expiresAt = :exp, " +
			"RetentionPK = :rpk, RetentionSK = :rsk REMOVE GSI2PK, GSI2SK"),
		ConditionExpression:      aws.String("stepCount = :expected AND #status = :active AND expiresAt > :nowEpoch"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":failed":   &types.AttributeValueMemberS{Value: string(tasks.StatusFailed)},
			":active":   &types.AttributeValueMemberS{Value: string(tasks.StatusActive)},
			":reason":   &types.AttributeValueMemberS{Value: reason},
			":now":      &types.AttributeValueMemberS{Value: now.Format(time.RFC3339Nano)},
			":nowEpoch": &types.AttributeValueMemberN{Value: fmt.Sprint(now.Unix())},
			":exp":      &types.AttributeValueMemberN{Value: fmt.Sprint(exp.Unix())},
			":rpk":      &types.AttributeValueMemberS{Value: retentionPK},
			":rsk":      &types.AttributeValueMemberS{Value: retentionSK},
			":expected": &types.AttributeValueMemberN{Value: fmt.Sprint(task.StepCount)},
		},
	})
	if dynamo.ConditionFailed(err) {
		return tasks.ErrConflict
	}
	if err != nil {
		return fmt.Errorf("fail task %s: %w", task.ID, err)
	}
	return nil
}

type idemItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	RetentionPK string `dynamodbav:"RetentionPK,omitempty"`
	RetentionSK string `dynamodbav:"RetentionSK,omitempty"`
	RequestHash string `dynamodbav:"requestHash"`
	StatusCode  int    `dynamodbav:"statusCode"`
	Body        []byte `dynamodbav:"body"`
	Pending     bool   `dynamodbav:"pending,omitempty"`
	ClaimID     string `dynamodbav:"claimId,omitempty"`
	CreatedAt   string `dynamodbav:"createdAt"`
	ExpiresAt   int64  `dynamodbav:"expiresAt"`
}

// GetIdempotency returns the record stored under the tenant's key, or ErrNotFound.
func (s *Store) GetIdempotency(ctx context.Context, tenantID, key string) (tasks.IdempotencyRecord, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: dynamo.Key(idemPK(tenantID, key), "IDEM"), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return tasks.IdempotencyRecord{}, fmt.Errorf("get idempotency record: %w", err)
	}
	var it idemItem
	if out.Item == nil {
		return tasks.IdempotencyRecord{}, tasks.ErrNotFound
	}
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return tasks.IdempotencyRecord{}, fmt.Errorf("decode idempotency record: %w", err)
	}
	if s.expired(it.ExpiresAt) {
		return tasks.IdempotencyRecord{}, tasks.ErrNotFound
	}
	created, err := dynamo.ParseTime(it.CreatedAt)
	if err != nil {
		return tasks.IdempotencyRecord{}, fmt.Errorf("stored idempotency record: createdAt: %w", err)
	}
	return tasks.IdempotencyRecord{Key: key, RequestHash: it.RequestHash, StatusCode: it.StatusCode, Body: it.Body, Pending: it.Pending, CreatedAt: created}, nil
}

// ClaimIdempotency records that a request with the key and requestHash is deciding its response,
// until the claim lapses at until; claimID names the claimer. It is tasks.ErrIdempotencyRace when
// the key has a live record (a response or another claim). The claim lives only until then and
// stays out of the Retention index: TTL alone removes an abandoned one.
func (s *Store) ClaimIdempotency(ctx context.Context, tenantID, key, requestHash, claimID string, until time.Time) error {
	now := s.now()
	av, err := attributevalue.MarshalMap(idemItem{
		PK: idemPK(tenantID, key), SK: "IDEM", RequestHash: requestHash, Pending: true, ClaimID: claimID,
		CreatedAt: now.Format(time.RFC3339Nano), ExpiresAt: until.Unix(),
	})
	if err != nil {
		return fmt.Errorf("encode idempotency claim: %w", err)
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: av,
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR expiresAt <= :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": &types.AttributeValueMemberN{Value: fmt.Sprint(now.Unix())}},
	})
	if dynamo.ConditionFailed(err) {
		return tasks.ErrIdempotencyRace
	}
	if err != nil {
		return fmt.Errorf("claim idempotency key: %w", err)
	}
	return nil
}

// ReleaseIdempotency removes the claim claimID made on the key, when it is still that pending
// claim: a request that failed leaves the key free for its retry.
func (s *Store) ReleaseIdempotency(ctx context.Context, tenantID, key, claimID string) error {
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.table), Key: dynamo.Key(idemPK(tenantID, key), "IDEM"),
		ConditionExpression: aws.String("pending = :true AND claimId = :claim"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":true": &types.AttributeValueMemberBOOL{Value: true}, ":claim": &types.AttributeValueMemberS{Value: claimID},
		},
	})
	if err != nil && !dynamo.ConditionFailed(err) {
		return fmt.Errorf("release idempotency claim: %w", err)
	}
	return nil
}

// LeaseTask holds the task for one step until until (package dynamo's lease), provided it is
// still active, live and at the step count it was read with; otherwise, or when another request
// holds it, tasks.ErrConflict. The step's commit replaces the header and so ends the lease.
func (s *Store) LeaseTask(ctx context.Context, task tasks.Task, leaseID string, until time.Time) error {
	now := s.now()
	err := s.lease(task.TenantID, task.ID, leaseID, until).Take(ctx, s.client, now, dynamo.Condition{
		Expression: "stepCount = :expected AND #status = :active AND expiresAt > :now",
		Names:      map[string]string{"#status": "status"},
		Values: map[string]types.AttributeValue{
			":expected": &types.AttributeValueMemberN{Value: fmt.Sprint(task.StepCount)},
			":active":   &types.AttributeValueMemberS{Value: string(tasks.StatusActive)},
			":now":      &types.AttributeValueMemberN{Value: fmt.Sprint(now.Unix())},
		},
	}, tasks.ErrConflict)
	if err != nil {
		return fmt.Errorf("lease task %s: %w", task.ID, err)
	}
	return nil
}

// ReleaseTask ends the lease leaseID holds on the task, if it still does.
func (s *Store) ReleaseTask(ctx context.Context, tenantID, taskID, leaseID string) error {
	if err := s.lease(tenantID, taskID, leaseID, time.Time{}).Release(ctx, s.client); err != nil {
		return fmt.Errorf("release task %s: %w", taskID, err)
	}
	return nil
}

func (s *Store) lease(tenantID, taskID, leaseID string, until time.Time) dynamo.Lease {
	return dynamo.Lease{Table: s.table, Key: dynamo.Key(TaskPK(tenantID, taskID), HeaderSK), ID: leaseID, Until: until}
}

// IdempotencyItem is the write that records a response under its key, in the step's transaction,
// so a response is remembered exactly when its step is stored.
func (s *Store) IdempotencyItem(tenantID string, rec tasks.IdempotencyRecord) (dynamo.Item, error) {
	now := s.now()
	it := idemItem{
		PK: idemPK(tenantID, rec.Key), SK: "IDEM", RequestHash: rec.RequestHash, StatusCode: rec.StatusCode, Body: rec.Body,
		CreatedAt: now.Format(time.RFC3339Nano), ExpiresAt: now.Add(s.Retention.Idempotency).Unix(),
	}
	it.RetentionPK, it.RetentionSK = expiry.Keys(it.PK, time.Unix(it.ExpiresAt, 0))
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return dynamo.Item{}, fmt.Errorf("encode idempotency record: %w", err)
	}
	return dynamo.Item{
		Write: types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.table), Item: av,
			// An expired record may be replaced (TTL has just not removed it yet), and so may the
			// pending claim of this request (ClaimIdempotency), which the response completes.
			ConditionExpression: aws.String("attribute_not_exists(PK) OR expiresAt <= :now OR (pending = :true AND requestHash = :hash)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":now":  &types.AttributeValueMemberN{Value: fmt.Sprint(now.Unix())},
				":true": &types.AttributeValueMemberBOOL{Value: true},
				":hash": &types.AttributeValueMemberS{Value: rec.RequestHash},
			},
		}},
		OnConditionFailed: tasks.ErrIdempotencyRace,
	}, nil
}

type debugItem struct {
	PK          string         `dynamodbav:"PK"`
	SK          string         `dynamodbav:"SK"`
	GSI1PK      string         `dynamodbav:"GSI1PK"`
	GSI1SK      string         `dynamodbav:"GSI1SK"`
	RetentionPK string         `dynamodbav:"RetentionPK"`
	RetentionSK string         `dynamodbav:"RetentionSK"`
	ID          string         `dynamodbav:"debugId"`
	TaskID      string         `dynamodbav:"taskId"`
	LogType     string         `dynamodbav:"logType"`
	Data        map[string]any `dynamodbav:"data"`
	CreatedAt   string         `dynamodbav:"createdAt"`
	ExpiresAt   int64          `dynamodbav:"expiresAt"`
}

// DebugItem is the write of a debug entry (kept for the debug retention).
func (s *Store) DebugItem(tenantID string, e tasks.DebugEntry) (dynamo.Item, error) {
	ts := dynamo.Sortable(e.CreatedAt)
	it := debugItem{
		PK: TaskPK(tenantID, e.TaskID), SK: "DEBUG#" + ts + "#" + e.ID,
		GSI1PK: debugPartition(tenantID), GSI1SK: ts + "#" + e.ID,
		ID: e.ID, TaskID: e.TaskID, LogType: e.LogType, Data: e.Data,
		CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339Nano), ExpiresAt: e.CreatedAt.Add(s.Retention.Debug).Unix(),
	}
	it.RetentionPK, it.RetentionSK = expiry.Keys(it.PK, time.Unix(it.ExpiresAt, 0))
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return dynamo.Item{}, fmt.Errorf("encode debug entry: %w", err)
	}
	return dynamo.Item{Write: types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: av}}}, nil
}

// PutDebug stores a debug entry on its own (for requests that store nothing else).
func (s *Store) PutDebug(ctx context.Context, tenantID string, e tasks.DebugEntry) error {
	it, err := s.DebugItem(tenantID, e)
	if err != nil {
		return err
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it.Write.Put.Item}); err != nil {
		return fmt.Errorf("put debug entry: %w", err)
	}
	return nil
}

// ListDebug returns the tenant's debug entries, newest first.
func (s *Store) ListDebug(ctx context.Context, tenantID string, f tasks.DebugFilter) ([]tasks.DebugEntry, error) {
	in := &dynamodb.QueryInput{
		TableName:        aws.String(s.table),
		ScanIndexForward: aws.Bool(false),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now": &types.AttributeValueMemberN{Value: fmt.Sprint(s.now().Unix())},
		},
	}
	filters := []string{"expiresAt > :now"}
	if f.TaskID != "" {
		// One task's entries live in its own partition: no tenant-wide read needed.
		in.KeyConditionExpression = aws.String("PK = :pk AND begins_with(SK, :debug)")
		in.ExpressionAttributeValues[":pk"] = &types.AttributeValueMemberS{Value: TaskPK(tenantID, f.TaskID)}
		in.ExpressionAttributeValues[":debug"] = &types.AttributeValueMemberS{Value: "DEBUG#"}
		if !f.Since.IsZero() {
			in.KeyConditionExpression = aws.String("PK = :pk AND SK BETWEEN :from AND :to")
			in.ExpressionAttributeValues[":from"] = &types.AttributeValueMemberS{Value: "DEBUG#" + dynamo.Sortable(f.Since)}
			in.ExpressionAttributeValues[":to"] = &types.AttributeValueMemberS{Value: "DEBUG$"}
			delete(in.ExpressionAttributeValues, ":debug")
		}
	} else {
		in.IndexName = aws.String("GSI1")
		in.KeyConditionExpression = aws.String("GSI1PK = :pk")
		in.ExpressionAttributeValues[":pk"] = &types.AttributeValueMemberS{Value: debugPartition(tenantID)}
		if !f.Since.IsZero() {
			in.KeyConditionExpression = aws.String("GSI1PK = :pk AND GSI1SK >= :since")
			in.ExpressionAttributeValues[":since"] = &types.AttributeValueMemberS{Value: dynamo.Sortable(f.Since)}
		}
	}
	if f.LogType != "" {
		filters = append(filters, "logType = :logType")
		in.ExpressionAttributeValues[":logType"] = &types.AttributeValueMemberS{Value: f.LogType}
	}
	in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	var out []tasks.DebugEntry
	p := dynamodb.NewQueryPaginator(s.client, in)
	for p.HasMorePages() && len(out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list debug entries: %w", err)
		}
		for _, raw := range page.Items {
			var it debugItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return nil, fmt.Errorf("decode debug entry: %w", err)
			}
			created, err := dynamo.ParseTime(it.CreatedAt)
			if err != nil {
				return nil, fmt.Errorf("stored debug entry %s: createdAt: %w", it.ID, err)
			}
			out = append(out, tasks.DebugEntry{ID: it.ID, TaskID: it.TaskID, LogType: it.LogType, Data: it.Data, CreatedAt: created})
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// AlignSteps raises the expiry of the task's steps to the task's own, for a task that has just
// ended: its earlier steps were written with the provisional retention of a running task, and
// children must not expire before their parent. It is bounded by the task's steps (at most the
// step limit) and changes nothing for a task that is gone.
func (s *Store) AlignSteps(ctx context.Context, tenantID, taskID string) error {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: dynamo.Key(TaskPK(tenantID, taskID), HeaderSK), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("get task %s: %w", taskID, err)
	}
	var header taskItem
	if out.Item == nil {
		return nil
	}
	if err := attributevalue.UnmarshalMap(out.Item, &header); err != nil {
		return fmt.Errorf("decode task %s: %w", taskID, err)
	}
	items, err := s.queryPrefix(ctx, TaskPK(tenantID, taskID), "STEP#")
	if err != nil {
		return fmt.Errorf("steps of task %s: %w", taskID, err)
	}
	exp := &types.AttributeValueMemberN{Value: fmt.Sprint(header.ExpiresAt)}
	for _, raw := range items {
		var it stepItem
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return fmt.Errorf("decode step of task %s: %w", taskID, err)
		}
		if it.ExpiresAt >= header.ExpiresAt {
			continue
		}
		_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(s.table),
			Key:                       dynamo.Key(it.PK, it.SK),
			UpdateExpression:          aws.String("SET expiresAt = :exp"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":exp": exp},
		})
		if err != nil && !dynamo.ConditionFailed(err) {
			return fmt.Errorf("extend step %d of task %s: %w", it.StepIndex, taskID, err)
		}
	}
	return nil
}
