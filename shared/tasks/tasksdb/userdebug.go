package tasksdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/tasks"
)

// ListUserDebug is ListDebug restricted to the user's own tasks, newest first. With f.TaskID it
// is tasks.ErrNotFound unless that task is the user's. Without, it walks the tenant's entries
// (GSI1) and keeps those of the user's tasks: entries carry no owner, so the tasks of each page
// read are looked up in one batch, and the reads grow with the entries walked, not with the
// tenant's tasks. Entries of a task that no longer exists are left out.
func (s *Store) ListUserDebug(ctx context.Context, tenantID, userID string, f tasks.DebugFilter) ([]tasks.DebugEntry, error) {
	if f.TaskID != "" {
		t, err := s.GetTask(ctx, tenantID, f.TaskID)
		if err != nil {
			return nil, err
		}
		if t.UserID != userID {
			return nil, tasks.ErrNotFound
		}
		return s.ListDebug(ctx, tenantID, f)
	}
	entries, err := s.listUserDebug(ctx, tenantID, userID, f)
	if err != nil {
		return nil, fmt.Errorf("list debug entries of user %s: %w", userID, err)
	}
	return entries, nil
}

// debugPageSize is how many entries one index read asks for: the owner filter may drop many.
const debugPageSize = 100

func (s *Store) listUserDebug(ctx context.Context, tenantID, userID string, f tasks.DebugFilter) ([]tasks.DebugEntry, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	values := map[string]types.AttributeValue{
		":pk":  &types.AttributeValueMemberS{Value: debugPartition(tenantID)},
		":now": &types.AttributeValueMemberN{Value: fmt.Sprint(s.now().Unix())},
	}
	keyCond := "GSI1PK = :pk"
	if !f.Since.IsZero() {
		keyCond += " AND GSI1SK >= :since"
		values[":since"] = &types.AttributeValueMemberS{Value: dynamo.Sortable(f.Since)}
	}
	filters := []string{"expiresAt > :now"}
	if f.LogType != "" {
		filters = append(filters, "logType = :logType")
		values[":logType"] = &types.AttributeValueMemberS{Value: f.LogType}
	}
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String("GSI1"),
		KeyConditionExpression:    aws.String(keyCond),
		FilterExpression:          aws.String(strings.Join(filters, " AND ")),
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(debugPageSize),
	})
	owned := map[string]bool{}
	var out []tasks.DebugEntry
	for p.HasMorePages() && len(out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		items := make([]debugItem, len(page.Items))
		var unknown []string
		for i, raw := range page.Items {
			if err := attributevalue.UnmarshalMap(raw, &items[i]); err != nil {
				return nil, fmt.Errorf("decode debug entry: %w", err)
			}
			if _, seen := owned[items[i].TaskID]; !seen {
				owned[items[i].TaskID] = false
				unknown = append(unknown, items[i].TaskID)
			}
		}
		if err := s.markOwned(ctx, tenantID, userID, unknown, owned); err != nil {
			return nil, err
		}
		for _, it := range items {
			if !owned[it.TaskID] {
				continue
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

// markOwned sets owned[id] for each of taskIDs to whether that live task is the user's.
func (s *Store) markOwned(ctx context.Context, tenantID, userID string, taskIDs []string, owned map[string]bool) error {
	keys := make([]map[string]types.AttributeValue, 0, len(taskIDs))
	for _, id := range taskIDs {
		keys = append(keys, dynamo.Key(TaskPK(tenantID, id), HeaderSK))
	}
	// An owner never changes, so eventually consistent reads do.
	items, err := dynamo.BatchGet(ctx, s.client, s.table, keys, types.KeysAndAttributes{ProjectionExpression: aws.String("taskId, userId, expiresAt")})
	if err != nil {
		return fmt.Errorf("owners of debug entries' tasks: %w", err)
	}
	for _, raw := range items {
		var it struct {
			TaskID    string `dynamodbav:"taskId"`
			UserID    string `dynamodbav:"userId"`
			ExpiresAt int64  `dynamodbav:"expiresAt"`
		}
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return fmt.Errorf("decode task owner: %w", err)
		}
		owned[it.TaskID] = it.UserID == userID && !s.expired(it.ExpiresAt)
	}
	return nil
}
