// Package realtimedb keeps the WebSocket API's state in its DynamoDB table (REALTIME_TABLE):
// tickets, connections, subscriptions, and each topic's event ids and recent events, all with TTL.
//
// Items (PK / SK):
//
//	TICKET#<sha256>                 TICKET            a ticket's owner, until it is taken or expires
//	CONN#<connectionId>             CONN              the connection's owner
//	CONN#<connectionId>             SUB#<topic>       a topic the connection watches (for $disconnect)
//	TENANT#<t>#TOPIC#<topic>        CONN#<connId>     a subscriber; live=false while it lingers after a close
//	TENANT#<t>#SEQ#<topic>          SEQ               the topic's last event id
//	TENANT#<t>#LOG#<topic>          <id, 19 digits>   an event as sent, for resumption
//
// A topic is "session#<id>" or "run#<id>". Tickets and connections are found by what the gateway
// gives (the ticket's hash, the connection id); they hold their tenant.
package realtimedb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/realtime"
)

// DB is what the store needs of DynamoDB.
type DB interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Store is the realtime store.
type Store struct {
	db    DB
	table string
	Now   func() time.Time
}

// New returns a store on the table.
func New(db DB, table string) *Store { return &Store{db: db, table: table} }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func epoch(t time.Time) types.AttributeValue {
	return dynamo.Num(t.Unix())
}

func ticketPK(hash string) string                    { return "TICKET#" + hash }
func connPK(id string) string                        { return "CONN#" + id }
func subSK(t realtime.Topic) string                  { return "SUB#" + t.Key() }
func topicPK(tenant string, t realtime.Topic) string { return "TENANT#" + tenant + "#TOPIC#" + t.Key() }
func seqPK(tenant string, t realtime.Topic) string   { return "TENANT#" + tenant + "#SEQ#" + t.Key() }
func logPK(tenant string, t realtime.Topic) string   { return "TENANT#" + tenant + "#LOG#" + t.Key() }
func logSK(id int64) string                          { return fmt.Sprintf("%019d", id) }

func getS(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getN(item map[string]types.AttributeValue, name string) int64 {
	if v, ok := item[name].(*types.AttributeValueMemberN); ok {
		n, _ := strconv.ParseInt(v.Value, 10, 64)
		return n
	}
	return 0
}

// live reports an item whose TTL has not passed: DynamoDB deletes expired items lazily.
func live(item map[string]types.AttributeValue, now time.Time) bool {
	return getN(item, "expiresAt") > now.Unix()
}

// PutTicket stores a ticket's hash and owner.
func (s *Store) PutTicket(ctx context.Context, hash string, o realtime.Owner, expires time.Time) error {
	item := dynamo.Key(ticketPK(hash), "TICKET")
	item["tenantId"], item["userId"], item["expiresAt"] = dynamo.Str(o.TenantID), dynamo.Str(o.UserID), epoch(expires)
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if err != nil {
		return fmt.Errorf("put ticket: %w", err)
	}
	return nil
}

// TakeTicket deletes the ticket under the condition that it exists and is unexpired: of two
// connections racing with one ticket, exactly one gets its owner.
func (s *Store) TakeTicket(ctx context.Context, hash string, now time.Time) (realtime.Owner, error) {
	out, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &s.table, Key: dynamo.Key(ticketPK(hash), "TICKET"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND expiresAt > :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": epoch(now)},
		ReturnValues:              types.ReturnValueAllOld,
	})
	if dynamo.ConditionFailed(err) {
		return realtime.Owner{}, realtime.ErrTicket
	}
	if err != nil {
		return realtime.Owner{}, fmt.Errorf("take ticket: %w", err)
	}
	return realtime.Owner{TenantID: getS(out.Attributes, "tenantId"), UserID: getS(out.Attributes, "userId")}, nil
}

// PutConnection records a connection's owner.
func (s *Store) PutConnection(ctx context.Context, connectionID string, o realtime.Owner, expires time.Time) error {
	item := dynamo.Key(connPK(connectionID), "CONN")
	item["tenantId"], item["userId"], item["expiresAt"] = dynamo.Str(o.TenantID), dynamo.Str(o.UserID), epoch(expires)
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item}); err != nil {
		return fmt.Errorf("put connection: %w", err)
	}
	return nil
}

// Connection returns the connection's owner.
func (s *Store) Connection(ctx context.Context, connectionID string, now time.Time) (realtime.Owner, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: dynamo.Key(connPK(connectionID), "CONN"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return realtime.Owner{}, fmt.Errorf("get connection: %w", err)
	}
	if out.Item == nil || !live(out.Item, now) {
		return realtime.Owner{}, realtime.ErrNotFound
	}
	return realtime.Owner{TenantID: getS(out.Item, "tenantId"), UserID: getS(out.Item, "userId")}, nil
}

// Subscriptions returns the connection's topics.
func (s *Store) Subscriptions(ctx context.Context, connectionID string) ([]realtime.Topic, error) {
	items, err := dynamo.QueryAll(ctx, s.db, &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :sub)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": dynamo.Str(connPK(connectionID)), ":sub": dynamo.Str("SUB#"),
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("query subscriptions: %w", err)
	}
	topics := make([]realtime.Topic, 0, len(items))
	for _, it := range items {
		kind, id, _ := strings.Cut(strings.TrimPrefix(getS(it, "SK"), "SUB#"), "#")
		topics = append(topics, realtime.Topic{Kind: kind, ID: id})
	}
	return topics, nil
}

// Subscribe writes the subscriber item and the connection's reference to it together.
func (s *Store) Subscribe(ctx context.Context, connectionID string, o realtime.Owner, t realtime.Topic, expires time.Time) error {
	sub := dynamo.Key(topicPK(o.TenantID, t), connPK(connectionID))
	sub["live"], sub["expiresAt"] = &types.AttributeValueMemberBOOL{Value: true}, epoch(expires)
	ref := dynamo.Key(connPK(connectionID), subSK(t))
	ref["tenantId"], ref["expiresAt"] = dynamo.Str(o.TenantID), epoch(expires)
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: sub}},
		{Put: &types.Put{TableName: &s.table, Item: ref}},
	}})
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	return nil
}

// Unsubscribe deletes both items of a subscription.
func (s *Store) Unsubscribe(ctx context.Context, connectionID string, o realtime.Owner, t realtime.Topic) error {
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: &s.table, Key: dynamo.Key(topicPK(o.TenantID, t), connPK(connectionID))}},
		{Delete: &types.Delete{TableName: &s.table, Key: dynamo.Key(connPK(connectionID), subSK(t))}},
	}})
	if err != nil {
		return fmt.Errorf("unsubscribe: %w", err)
	}
	return nil
}

// Close deletes the connection and its references, and turns its subscriber items into
// lingering ones (live=false) that expire at linger. Closing twice is harmless.
func (s *Store) Close(ctx context.Context, connectionID string, linger time.Time) error {
	topics, err := s.Subscriptions(ctx, connectionID)
	if err != nil {
		return err
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: dynamo.Key(connPK(connectionID), "CONN"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return fmt.Errorf("get connection: %w", err)
	}
	tenant := getS(out.Item, "tenantId")
	for _, t := range topics {
		if tenant != "" {
			_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: &s.table, Key: dynamo.Key(topicPK(tenant, t), connPK(connectionID)),
				UpdateExpression:          aws.String("SET live = :f, expiresAt = :exp"),
				ConditionExpression:       aws.String("attribute_exists(PK)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":f": &types.AttributeValueMemberBOOL{Value: false}, ":exp": epoch(linger)},
			})
			if err != nil && !dynamo.ConditionFailed(err) {
				return fmt.Errorf("linger subscription: %w", err)
			}
		}
		if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: dynamo.Key(connPK(connectionID), subSK(t))}); err != nil {
			return fmt.Errorf("delete subscription reference: %w", err)
		}
	}
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: dynamo.Key(connPK(connectionID), "CONN")}); err != nil {
		return fmt.Errorf("delete connection: %w", err)
	}
	return nil
}

// Subscribers is the one query a publish makes when nobody listens.
func (s *Store) Subscribers(ctx context.Context, tenantID string, t realtime.Topic) ([]realtime.Subscriber, error) {
	items, err := dynamo.QueryAll(ctx, s.db, &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": dynamo.Str(topicPK(tenantID, t))},
	})
	if err != nil {
		return nil, fmt.Errorf("query subscribers: %w", err)
	}
	now := s.now()
	var subs []realtime.Subscriber
	for _, it := range items {
		if !live(it, now) {
			continue
		}
		b, _ := it["live"].(*types.AttributeValueMemberBOOL)
		subs = append(subs, realtime.Subscriber{ConnectionID: strings.TrimPrefix(getS(it, "SK"), "CONN#"), Live: b != nil && b.Value})
	}
	return subs, nil
}

// Reserve adds n to the topic's counter and returns the first of the n ids.
func (s *Store) Reserve(ctx context.Context, tenantID string, t realtime.Topic, n int) (int64, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: dynamo.Key(seqPK(tenantID, t), "SEQ"),
		UpdateExpression:          aws.String("ADD lastId :n SET expiresAt = :exp"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": dynamo.Num(int64(n)), ":exp": epoch(s.now().Add(realtime.ConnectionTTL + realtime.DefaultResumeWindow))},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, fmt.Errorf("reserve ids: %w", err)
	}
	return getN(out.Attributes, "lastId") - int64(n) + 1, nil
}

// Keep stores the messages until the given time.
func (s *Store) Keep(ctx context.Context, tenantID string, t realtime.Topic, msgs []realtime.Message, until time.Time) error {
	for start := 0; start < len(msgs); start += 25 {
		var reqs []types.WriteRequest
		for _, m := range msgs[start:min(start+25, len(msgs))] {
			item := dynamo.Key(logPK(tenantID, t), logSK(m.ID))
			item["data"], item["expiresAt"] = dynamo.Str(string(m.Data)), epoch(until)
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		in := map[string][]types.WriteRequest{s.table: reqs}
		for len(in) > 0 {
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: in})
			if err != nil {
				return fmt.Errorf("keep events: %w", err)
			}
			in = out.UnprocessedItems
		}
	}
	return nil
}

// LastID is the topic's counter.
func (s *Store) LastID(ctx context.Context, tenantID string, t realtime.Topic) (int64, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: dynamo.Key(seqPK(tenantID, t), "SEQ"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, fmt.Errorf("get last id: %w", err)
	}
	return getN(out.Item, "lastId"), nil
}

// Since returns the kept messages after id, oldest first.
func (s *Store) Since(ctx context.Context, tenantID string, t realtime.Topic, id int64, now time.Time) ([]realtime.Message, error) {
	items, err := dynamo.QueryAll(ctx, s.db, &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND SK > :after"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": dynamo.Str(logPK(tenantID, t)), ":after": dynamo.Str(logSK(id)),
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("query events: %w", err)
	}
	msgs := make([]realtime.Message, 0, len(items))
	for _, it := range items {
		if !live(it, now) {
			continue
		}
		n, _ := strconv.ParseInt(getS(it, "SK"), 10, 64)
		msgs = append(msgs, realtime.Message{ID: n, Data: []byte(getS(it, "data"))})
	}
	return msgs, nil
}
