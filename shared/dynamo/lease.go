package dynamo

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Lease is a short exclusive hold on one item (a task's or a run's header), taken before slow
// work that must not run twice for the same state, such as an LLM call: a concurrent request
// finds it held and gives up at once instead of paying for the work and losing at the commit.
// A write that replaces the whole item (the commit) ends it; Release ends it otherwise. It
// expires by itself at Until, so a holder that died blocks no one for long.
type Lease struct {
	Table string
	Key   map[string]types.AttributeValue
	// ID names the holder; Until is when the lease lapses.
	ID    string
	Until time.Time
	// Own keeps the lease in an item of its own, at Key, instead of on the item it guards: a
	// lease on a large item costs that item's size in write units, one of its own costs one.
	// Acquire creates the item with expiresAt (the tables' TTL attribute) at Until, Release
	// deletes it; nothing else ends it, so the guarded item's commit must delete it too.
	Own bool
}

// The held item's lease attributes; leaseUntil is epoch milliseconds.
const (
	leaseIDAttr    = "leaseId"
	leaseUntilAttr = "leaseUntil"
)

// Condition is a condition expression with its names and values. Its placeholders must not
// start with :lease or #lease.
type Condition struct {
	Expression string
	Names      map[string]string
	Values     map[string]types.AttributeValue
}

// Updater is the part of the DynamoDB client a lease needs.
type Updater interface {
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// Acquire takes the lease when the item meets also (e.g. still has the step count that was read)
// and no unexpired lease is on it. It reports false when either is not so: another request holds
// the item or changed it.
func (l Lease) Acquire(ctx context.Context, db Updater, now time.Time, also Condition) (bool, error) {
	names := map[string]string{"#leaseId": leaseIDAttr, "#leaseUntil": leaseUntilAttr}
	values := map[string]types.AttributeValue{
		":leaseId":    &types.AttributeValueMemberS{Value: l.ID},
		":leaseUntil": millis(l.Until),
		":leaseNow":   millis(now),
	}
	maps.Copy(names, also.Names)
	maps.Copy(values, also.Values)
	cond := "(attribute_not_exists(#leaseUntil) OR #leaseUntil <= :leaseNow)"
	if also.Expression != "" {
		cond = "(" + also.Expression + ") AND " + cond
	}
	update := "SET #leaseId = :leaseId, #leaseUntil = :leaseUntil"
	if l.Own {
		update += ", #leaseExpires = :leaseExpires"
		names["#leaseExpires"] = "expiresAt"
		values[":leaseExpires"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(l.Until.Unix()+1, 10)}
	}
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(l.Table), Key: l.Key,
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if ConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take lease: %w", err)
	}
	return true, nil
}

// Take is Acquire for a store: held (the store's conflict error) when the item is held by
// another or no longer meets also.
func (l Lease) Take(ctx context.Context, db Updater, now time.Time, also Condition, held error) error {
	ok, err := l.Acquire(ctx, db, now, also)
	switch {
	case err != nil:
		return err
	case !ok:
		return held
	}
	return nil
}

// Release ends the lease if it is still this one's; a lease already ended (by a commit that
// replaced the item, or by expiry and another holder) is left alone.
func (l Lease) Release(ctx context.Context, db Updater) error {
	if l.Own {
		_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(l.Table), Key: l.Key,
			ConditionExpression:       aws.String("#leaseId = :leaseId"),
			ExpressionAttributeNames:  map[string]string{"#leaseId": leaseIDAttr},
			ExpressionAttributeValues: map[string]types.AttributeValue{":leaseId": &types.AttributeValueMemberS{Value: l.ID}},
		})
		if err != nil && !ConditionFailed(err) {
			return fmt.Errorf("release lease: %w", err)
		}
		return nil
	}
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(l.Table), Key: l.Key,
		UpdateExpression:          aws.String("REMOVE #leaseId, #leaseUntil"),
		ConditionExpression:       aws.String("#leaseId = :leaseId"),
		ExpressionAttributeNames:  map[string]string{"#leaseId": leaseIDAttr, "#leaseUntil": leaseUntilAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":leaseId": &types.AttributeValueMemberS{Value: l.ID}},
	})
	if err != nil && !ConditionFailed(err) {
		return fmt.Errorf("release lease: %w", err)
	}
	return nil
}

func millis(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.UnixMilli(), 10)}
}
