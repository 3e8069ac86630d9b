package tasksdb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/tasks"
)

// Sort-key prefixes of the records, counted by the retention cleanup as verificationRecords and
// correctionRecords (ItemKind).
const (
	verificationPrefix = "VERIFICATION#"
	correctionPrefix   = "CORRECTION#"
)

// verificationSK is one per checked step: a step's action is verified once, at the next step.
func verificationSK(stepIndex int) string {
	return fmt.Sprintf("%s%06d", verificationPrefix, stepIndex)
}

// correctionSK orders a step's corrections by time after the step, so a later correction of the
// same step is a new record rather than a replacement.
func correctionSK(stepIndex int, created time.Time) string {
	return fmt.Sprintf("%s%06d#%s", correctionPrefix, stepIndex, dynamo.Sortable(created))
}

// recordHead is what every record item holds besides its content: its keys, task, step and times.
type recordHead struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	RetentionPK string `dynamodbav:"RetentionPK"`
	RetentionSK string `dynamodbav:"RetentionSK"`
	TaskID      string `dynamodbav:"taskId"`
	StepIndex   int    `dynamodbav:"stepIndex"`
	CreatedAt   string `dynamodbav:"createdAt"`
	ExpiresAt   int64  `dynamodbav:"expiresAt"`
}

func (h *recordHead) head() *recordHead { return h }

type verificationItem struct {
	recordHead
	Action   string             `dynamodbav:"action"`
	Verdict  string             `dynamodbav:"verdict"`
	Method   string             `dynamodbav:"method"`
	Expected *expectationRecord `dynamodbav:"expectedOutcome,omitempty"`
	Evidence []string           `dynamodbav:"evidence,omitempty"`
}

type correctionItem struct {
	recordHead
	Strategy     string `dynamodbav:"strategy"`
	Reason       string `dynamodbav:"reason"`
	FailedAction string `dynamodbav:"failedAction"`
	Action       string `dynamodbav:"action,omitempty"`
}

// newHead is a record's head: made at created (now when the caller did not say), expiring
// Retention.Records from its write, in the Retention index so that the cleanup deletes it then,
// or with its task if the task goes first. sk names the record from its step and creation time.
func (s *Store) newHead(tenantID, taskID string, stepIndex int, created time.Time, sk func(int, time.Time) string) recordHead {
	now := s.now()
	if created.IsZero() {
		created = now
	}
	created = created.UTC()
	h := recordHead{
		PK: TaskPK(tenantID, taskID), SK: sk(stepIndex, created), TaskID: taskID, StepIndex: stepIndex,
		CreatedAt: created.Format(time.RFC3339Nano), ExpiresAt: now.Add(s.Retention.Records).Unix(),
	}
	h.RetentionPK, h.RetentionSK = expiry.Keys(h.PK, time.Unix(h.ExpiresAt, 0))
	return h
}

func checkRecord(kind, taskID string, stepIndex int) error {
	if taskID == "" || stepIndex < 0 {
		return fmt.Errorf("%s record needs a task and a step index, got %q step %d", kind, taskID, stepIndex)
	}
	return nil
}

// VerificationItem is the write of a verification record, for the transaction of the step that
// made it: that transaction's condition on the live task header is what keeps records out of a
// task the cleanup may be deleting. A step's action is verified once; writing its record again
// replaces it.
func (s *Store) VerificationItem(tenantID string, v tasks.Verification) (dynamo.Item, error) {
	if err := checkRecord("verification", v.TaskID, v.StepIndex); err != nil {
		return dynamo.Item{}, err
	}
	it := verificationItem{
		recordHead: s.newHead(tenantID, v.TaskID, v.StepIndex, v.CreatedAt, func(i int, _ time.Time) string { return verificationSK(i) }),
		Action:     v.Action, Verdict: v.Verdict, Method: v.Method, Expected: dynamo.Optional(v.Expected, expectationOf), Evidence: v.Evidence,
	}
	return s.recordPut(it, "verification")
}

// CorrectionItem is the write of a correction record, for the transaction of the step that chose
// it (see VerificationItem).
func (s *Store) CorrectionItem(tenantID string, c tasks.Correction) (dynamo.Item, error) {
	if err := checkRecord("correction", c.TaskID, c.StepIndex); err != nil {
		return dynamo.Item{}, err
	}
	it := correctionItem{
		recordHead: s.newHead(tenantID, c.TaskID, c.StepIndex, c.CreatedAt, correctionSK),
		Strategy:   c.Strategy, Reason: c.Reason, FailedAction: c.FailedAction, Action: c.Action,
	}
	return s.recordPut(it, "correction")
}

func (s *Store) recordPut(it any, kind string) (dynamo.Item, error) {
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return dynamo.Item{}, fmt.Errorf("encode %s record: %w", kind, err)
	}
	return dynamo.Item{Write: types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: av}}}, nil
}

// Verifications returns the task's verification records in step order (oldest first).
func (s *Store) Verifications(ctx context.Context, tenantID, taskID string) ([]tasks.Verification, error) {
	return readRecords(ctx, s, tenantID, taskID, verificationPrefix, "verification", func(it verificationItem, created time.Time) tasks.Verification {
		return tasks.Verification{
			TaskID: it.TaskID, StepIndex: it.StepIndex, Action: it.Action, Verdict: it.Verdict, Method: it.Method,
			Expected: dynamo.Optional(it.Expected, expectationRecord.expectation), Evidence: it.Evidence, CreatedAt: created,
		}
	})
}

// Corrections returns the task's correction records in step order (oldest first).
func (s *Store) Corrections(ctx context.Context, tenantID, taskID string) ([]tasks.Correction, error) {
	return readRecords(ctx, s, tenantID, taskID, correctionPrefix, "correction", func(it correctionItem, created time.Time) tasks.Correction {
		return tasks.Correction{
			TaskID: it.TaskID, StepIndex: it.StepIndex, Strategy: it.Strategy, Reason: it.Reason,
			FailedAction: it.FailedAction, Action: it.Action, CreatedAt: created,
		}
	})
}

// readRecords reads the task's live records of one kind (its sort-key prefix) in step order and
// builds each with build.
func readRecords[I any, P interface {
	*I
	head() *recordHead
}, R any](ctx context.Context, s *Store, tenantID, taskID, prefix, kind string, build func(I, time.Time) R) ([]R, error) {
	items, err := s.queryPrefix(ctx, TaskPK(tenantID, taskID), prefix)
	if err != nil {
		return nil, fmt.Errorf("%s records of task %s: %w", kind, taskID, err)
	}
	out := make([]R, 0, len(items))
	for _, raw := range items {
		var it I
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return nil, fmt.Errorf("decode %s record of task %s: %w", kind, taskID, err)
		}
		h := P(&it).head()
		if s.expired(h.ExpiresAt) {
			continue
		}
		created, err := dynamo.ParseTime(h.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("stored %s record %s of task %s: createdAt: %w", kind, h.SK, taskID, err)
		}
		out = append(out, build(it, created))
	}
	return out, nil
}
