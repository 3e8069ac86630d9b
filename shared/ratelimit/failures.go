package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// failureClass names failure counters in keys; no endpoint class is spelled like it.
const failureClass = "failures"

// Failures returns how many failures subject (e.g. an account or an IP of login attempts) has
// had in the current window and when the window ends. The read is strongly consistent, so a
// failure counted on another instance a moment ago is seen. The key names the current window,
// so an expired counter is never read.
func (l *Limiter) Failures(ctx context.Context, subject string, size time.Duration) (int, time.Time, error) {
	w, err := l.window(size)
	if err != nil {
		return 0, time.Time{}, err
	}
	out, err := l.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(l.table),
		Key:            w.key(subject, failureClass),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("ratelimit: read failures of %s: %w", subject, err)
	}
	count, err := countOf(out.Item)
	if err != nil {
		return 0, time.Time{}, err
	}
	return count, time.Unix(w.end, 0), nil
}

// AddFailure counts one failure of subject in the current window and returns the new count.
// It has no condition: every failure counts, however many came before.
func (l *Limiter) AddFailure(ctx context.Context, subject string, size time.Duration) (int, error) {
	w, err := l.window(size)
	if err != nil {
		return 0, err
	}
	out, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(l.table),
		Key:                      w.key(subject, failureClass),
		UpdateExpression:         aws.String("ADD #count :one SET expiresAt = :exp"),
		ExpressionAttributeNames: map[string]string{"#count": "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": &types.AttributeValueMemberN{Value: "1"},
			":exp": w.expiresAt(),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, fmt.Errorf("ratelimit: count failure of %s: %w", subject, err)
	}
	return countOf(out.Attributes)
}

// ClearFailures forgets subject's failures in the current window, e.g. an account's once it logs in.
func (l *Limiter) ClearFailures(ctx context.Context, subject string, size time.Duration) error {
	w, err := l.window(size)
	if err != nil {
		return err
	}
	_, err = l.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(l.table),
		Key:       w.key(subject, failureClass),
	})
	if err != nil {
		return fmt.Errorf("ratelimit: clear failures of %s: %w", subject, err)
	}
	return nil
}
