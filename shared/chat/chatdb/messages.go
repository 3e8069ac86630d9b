package chatdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
)

// CaptureDOM summarizes the page of a step in a session and prepares its snapshot
// (chat.CaptureDOM with the store's size limit). When the session holds the same page already,
// with at least half its retention left, the capture names it but carries no Snapshot to write:
// the step references the stored one. Otherwise the step (re)writes it, which renews it.
func (s *Store) CaptureDOM(ctx context.Context, tenantID, sessionID, dom string) (chat.DOMCapture, error) {
	c, err := chat.CaptureDOM(dom, s.MaxSnapshotBytes)
	if err != nil || c.Snapshot == nil {
		return c, err
	}
	// Eventually consistent is enough: a miss only writes the same item again.
	res, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:            &s.messages,
		Key:                  dynamo.Key(SessionPK(tenantID, sessionID), snapshotSK(c.SnapshotID)),
		ProjectionExpression: aws.String("expiresAt"),
	})
	if err != nil {
		return chat.DOMCapture{}, fmt.Errorf("look up snapshot in session %s: %w", sessionID, err)
	}
	if res.Item == nil {
		return c, nil
	}
	var stored struct {
		ExpiresAt time.Time `dynamodbav:"expiresAt,unixtime"`
	}
	if err := attributevalue.UnmarshalMap(res.Item, &stored); err != nil {
		return chat.DOMCapture{}, fmt.Errorf("look up snapshot in session %s: %w", sessionID, err)
	}
	if stored.ExpiresAt.After(s.now().Add(s.Retention.Snapshot / 2)) {
		c.Snapshot = nil
	}
	return c, nil
}

// ListMessages returns a session's live messages oldest first (by sequence number), at most
// limit of them (all when limit ≤ 0), only those after since when it is not zero, with the session
// itself. Messages carry the page's summary, never the page. The session must be the tenant's and
// live (chat.ErrNotFound); who may see it (owner, archived) is the caller's rule.
func (s *Store) ListMessages(ctx context.Context, tenantID, sessionID string, limit int, since time.Time) (chat.MessagePage, error) {
	page, err := s.listMessages(ctx, tenantID, sessionID, limit, since)
	if err != nil {
		return chat.MessagePage{}, fmt.Errorf("list messages of session %s: %w", sessionID, err)
	}
	return page, nil
}

func (s *Store) listMessages(ctx context.Context, tenantID, sessionID string, limit int, since time.Time) (chat.MessagePage, error) {
	sess, err := s.getSession(ctx, tenantID, sessionID)
	if err != nil {
		return chat.MessagePage{}, err
	}
	filter := live
	values := map[string]types.AttributeValue{
		":pk":  dynamo.Str(SessionPK(tenantID, sessionID)),
		":msg": dynamo.Str(msgPrefix),
		":now": dynamo.Num(s.now().Unix()),
	}
	var names map[string]string
	if !since.IsZero() {
		filter += " AND #ts > :since"
		names = map[string]string{"#ts": "timestamp"}
		values[":since"] = dynamo.Str(dynamo.Sortable(since))
	}
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                 &s.messages,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :msg)"),
		FilterExpression:          aws.String(filter),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ConsistentRead:            aws.Bool(true),
	})
	var msgs []chat.Message
	for p.HasMorePages() && (limit <= 0 || len(msgs) < limit) {
		out, err := p.NextPage(ctx)
		if err != nil {
			return chat.MessagePage{}, err
		}
		var items []messageItem
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
			return chat.MessagePage{}, err
		}
		for _, it := range items {
			m, err := it.message()
			if err != nil {
				return chat.MessagePage{}, err
			}
			msgs = append(msgs, m)
		}
	}
	if limit > 0 && len(msgs) > limit {
		msgs = msgs[:limit]
	}
	return chat.MessagePage{Session: sess, Messages: msgs, Total: sess.MessageCount}, nil
}

// GetSnapshot returns the page a message's SnapshotID names, decompressed, or chat.ErrNotFound
// when the session holds no such live snapshot.
func (s *Store) GetSnapshot(ctx context.Context, tenantID, sessionID, snapshotID string) (string, error) {
	dom, err := s.getSnapshot(ctx, tenantID, sessionID, snapshotID)
	if err != nil {
		return "", fmt.Errorf("get snapshot %s of session %s: %w", snapshotID, sessionID, err)
	}
	return dom, nil
}

func (s *Store) getSnapshot(ctx context.Context, tenantID, sessionID, snapshotID string) (string, error) {
	if !chat.ValidSnapshotID(snapshotID) || tenantID == "" || sessionID == "" {
		return "", chat.ErrNotFound
	}
	item, err := s.getItem(ctx, s.messages, dynamo.Key(SessionPK(tenantID, sessionID), snapshotSK(snapshotID)))
	if err != nil {
		return "", err
	}
	if item == nil {
		return "", chat.ErrNotFound
	}
	var it snapshotItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return "", err
	}
	if expired(it.ExpiresAt, s.now()) {
		return "", chat.ErrNotFound
	}
	if len(it.Gzip) == 0 {
		return "", errors.New("stored snapshot has no data")
	}
	return chat.Snapshot{ID: it.SnapshotID, Gzip: it.Gzip, Length: it.DOMLength}.DOM()
}
