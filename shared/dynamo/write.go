// Package dynamo holds the DynamoDB patterns the stores share: one transaction assembled from
// several stores' writes that says which store's condition stopped it (so a lost race maps to the
// right domain error), batch reads that resend unprocessed keys, reading every page of a query,
// leases, and the item helpers every store uses (keys, times, item kinds, failed conditions).
package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ConditionFailed reports whether err is the failed condition of a single-item write: the item
// was not as the write expected (a lost race, a missing or present item), which each store maps
// to its domain's error. A transaction's failed condition is Write's instead.
func ConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// MaxItems is DynamoDB's limit of actions in one TransactWriteItems.
const MaxItems = 100

// Item is one write of a transaction and the error its failed condition means.
type Item struct {
	Write types.TransactWriteItem
	// OnConditionFailed is returned (wrapped) when this item's condition fails. Nil means the
	// condition cannot fail, or a failure is a bug reported as a plain error.
	OnConditionFailed error
}

// Writer is the part of the DynamoDB client a transaction needs.
type Writer interface {
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Write runs items as one transaction. When a condition fails, the error wraps the failing item's
// OnConditionFailed (the first such item in order), so callers can errors.Is it.
func Write(ctx context.Context, db Writer, items []Item) error {
	if len(items) == 0 {
		return nil
	}
	if len(items) > MaxItems {
		return fmt.Errorf("transaction of %d items exceeds %d", len(items), MaxItems)
	}
	writes := make([]types.TransactWriteItem, len(items))
	for i, it := range items {
		writes[i] = it.Write
	}
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: writes})
	var canceled *types.TransactionCanceledException
	if !errors.As(err, &canceled) {
		return err
	}
	for i, r := range canceled.CancellationReasons {
		if aws.ToString(r.Code) != "ConditionalCheckFailed" || i >= len(items) {
			continue
		}
		if items[i].OnConditionFailed != nil {
			// The item's own meaning is the whole message: its index is of no use to whoever reads it.
			return items[i].OnConditionFailed
		}
		return fmt.Errorf("transaction item %d: condition failed: %w", i, err)
	}
	return err
}

// Items wraps plain writes that share one meaning of a failed condition.
func Items(onConditionFailed error, writes ...types.TransactWriteItem) []Item {
	out := make([]Item, len(writes))
	for i, w := range writes {
		out[i] = Item{Write: w, OnConditionFailed: onConditionFailed}
	}
	return out
}
