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

// Sort-key prefixes of the records. The retention cleanup names what it deletes by the prefix,
// so these are counted as verificationRecords and correctionRecords.
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
	return fmt.Sprintf("%s%06d#%s", correctionPrefix, stepIndex, created.UTC().Format(sortableTime))
}

type verificationItem struct {
	PK          string             `dynamodbav:"PK"`
	SK          string             `dynamodbav:"SK"`
	RetentionPK string             `dynamodbav:"RetentionPK"`
	RetentionSK string             `dynamodbav:"RetentionSK"`
	TaskID      string             `dynamodbav:"taskId"`
	StepIndex   int                `dynamodbav:"stepIndex"`
	Action      string             `dynamodbav:"action"`
	Verdict     string             `dynamodbav:"verdict"`
	Method      string             `dynamodbav:"method"`
	Expected    *tasks.Expectation `dynamodbav:"expectedOutcome,omitempty"`
	Evidence    []string           `dynamodbav:"evidence,omitempty"`
	CreatedAt   string             `dynamodbav:"createdAt"`
	ExpiresAt   int64              `dynamodbav:"expiresAt"`
}

type correctionItem struct {
	PK           string `dynamodbav:"PK"`
	SK           string `dynamodbav:"SK"`
	RetentionPK  string `dynamodbav:"RetentionPK"`
	RetentionSK  string `dynamodbav:"RetentionSK"`
	TaskID       string `dynamodbav:"taskId"`
	StepIndex    int    `dynamodbav:"stepIndex"`
	Strategy     string `dynamodbav:"strategy"`
	Reason       string `dynamodbav:"reason"`
	FailedAction string `dynamodbav:"failedAction"`
	Action       string `dynamodbav:"action,omitempty"`
	CreatedAt    string `dynamodbav:"createdAt"`
	ExpiresAt    int64  `dynamodbav:"expiresAt"`
}

// recordTimes returns when a record was made (now when the caller did not say) and when it
// expires: Retention.Records from its write, in the Retention index so that the cleanup deletes
// it then, or with its task if the task goes first.
func (s *Store) recordTimes(created time.Time) (time.Time, int64) {
	now := s.now()
	if created.IsZero() {
		created = now
	}
	return created.UTC(), now.Add(s.Retention.Records).Unix()
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
	created, expires := s.recordTimes(v.CreatedAt)
	it := verificationItem{
		PK: taskPK(tenantID, v.TaskID), SK: verificationSK(v.StepIndex),
		TaskID: v.TaskID, StepIndex: v.StepIndex, Action: v.Action, Verdict: v.Verdict, Method: v.Method,
		Expected: v.Expected, Evidence: v.Evidence, CreatedAt: created.Format(time.RFC3339Nano), ExpiresAt: expires,
	}
	it.RetentionPK, it.RetentionSK = expiry.Keys(it.PK, time.Unix(expires, 0))
	return s.recordPut(it, "verification")
}

// CorrectionItem is the write of a correction record, for the transaction of the step that chose
// it (see VerificationItem).
func (s *Store) CorrectionItem(tenantID string, c tasks.Correction) (dynamo.Item, error) {
	if err := checkRecord("correction", c.TaskID, c.StepIndex); err != nil {
		return dynamo.Item{}, err
	}
	created, expires := s.recordTimes(c.CreatedAt)
	it := correctionItem{
		PK: taskPK(tenantID, c.TaskID), SK: correctionSK(c.StepIndex, created),
		TaskID: c.TaskID, StepIndex: c.StepIndex, Strategy: c.Strategy, Reason: c.Reason,
		FailedAction: c.FailedAction, Action: c.Action, CreatedAt: created.Format(time.RFC3339Nano), ExpiresAt: expires,
	}
	it.RetentionPK, it.RetentionSK = expiry.Keys(it.PK, time.Unix(expires, 0))
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
	items, err := s.queryPrefix(ctx, taskPK(tenantID, taskID), verificationPrefix)
	if err != nil {
		return nil, fmt.Errorf("verification records of task %s: %w", taskID, err)
	}
	out := make([]tasks.Verification, 0, len(items))
	for _, raw := range items {
		var it verificationItem
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return nil, fmt.Errorf("decode verification record of task %s: %w", taskID, err)
		}
		if s.expired(it.ExpiresAt) {
			continue
		}
		created, _ := time.Parse(time.RFC3339Nano, it.CreatedAt)
		out = append(out, tasks.Verification{
			TaskID: it.TaskID, StepIndex: it.StepIndex, Action: it.Action, Verdict: it.Verdict, Method: it.Method,
			Expected: it.Expected, Evidence: it.Evidence, CreatedAt: created,
		})
	}
	return out, nil
}

// Corrections returns the task's correction records in step order (oldest first).
func (s *Store) Corrections(ctx context.Context, tenantID, taskID string) ([]tasks.Correction, error) {
	items, err := s.queryPrefix(ctx, taskPK(tenantID, taskID), correctionPrefix)
	if err != nil {
		return nil, fmt.Errorf("correction records of task %s: %w", taskID, err)
	}
	out := make([]tasks.Correction, 0, len(items))
	for _, raw := range items {
		var it correctionItem
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return nil, fmt.Errorf("decode correction record of task %s: %w", taskID, err)
		}
		if s.expired(it.ExpiresAt) {
			continue
		}
		created, _ := time.Parse(time.RFC3339Nano, it.CreatedAt)
		out = append(out, tasks.Correction{
			TaskID: it.TaskID, StepIndex: it.StepIndex, Strategy: it.Strategy, Reason: it.Reason,
			FailedAction: it.FailedAction, Action: it.Action, CreatedAt: created,
		})
	}
	return out, nil
}
