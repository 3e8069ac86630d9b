// Package ratelimit counts requests in the RateLimits table: one counter item per (subject,
// endpoint class, fixed window), raised by a single conditional UpdateItem, so no number of
// concurrent requests on any number of Lambda instances gets past a limit
// (SERVER_SIDE_AGENT_ARCH.md §4.13, §14.5). It also keeps the failure counters that protect login.
package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
)

// expiryMargin keeps a counter past its window's end, so TTL never deletes the counter of a
// window an instance with a slightly late clock still counts in.
const expiryMargin = time.Minute

// Limiter counts requests in one table.
type Limiter struct {
	db    *dynamodb.Client
	table string
	// Now is the clock windows are cut from; nil means time.Now. Tests move it to the next window.
	Now func() time.Time
}

// New returns a Limiter over the table (RATE_LIMITS_TABLE).
func New(db *dynamodb.Client, table string) *Limiter {
	return &Limiter{db: db, table: table}
}

// Decision is the outcome of one Take.
type Decision struct {
	Allowed   bool
	Limit     int
	Remaining int
	// Reset is the end of the window, when the count starts again.
	Reset time.Time
	// RetryAfter is the whole seconds until Reset, at least 1.
	RetryAfter int
}

// window is one fixed window; windows are aligned to multiples of their size since the Unix
// epoch, so every instance cuts the same windows.
type window struct {
	start, end int64
	retryAfter int
}

func (l *Limiter) window(size time.Duration) (window, error) {
	if size < time.Second || size%time.Second != 0 {
		return window{}, fmt.Errorf("ratelimit: window %v is not a whole number of seconds", size)
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	secs := int64(size / time.Second)
	t := now().Unix()
	start := t - t%secs
	// Whole seconds of t are in [start, end-1], so end-t is the remaining time rounded up, ≥ 1.
	return window{start: start, end: start + secs, retryAfter: int(start + secs - t)}, nil
}

func (w window) key(subject, class string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: subject + "#" + class + "#" + strconv.FormatInt(w.start, 10)},
	}
}

func (w window) expiresAt() types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(w.end+int64(expiryMargin/time.Second), 10)}
}

// Take counts one request of subject to class against limit requests per window. A refusal is
// Allowed false with a nil error. On an error the Decision is a refusal too (Remaining 0), so a
// caller that only looks at Allowed still fails closed.
func (l *Limiter) Take(ctx context.Context, subject, class string, limit int, size time.Duration) (Decision, error) {
	w, err := l.window(size)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Limit: limit, Reset: time.Unix(w.end, 0), RetryAfter: w.retryAfter}
	if subject == "" || class == "" || limit < 1 {
		return d, fmt.Errorf("ratelimit: take needs a subject, a class and a limit ≥ 1, got %q, %q, %d", subject, class, limit)
	}
	// The condition makes the check and the increment one atomic step on the server. A call the
	// SDK resends after a lost response may count twice; that errs toward refusing, never past
	// the limit.
	out, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(l.table),
		Key:                      w.key(subject, class),
		UpdateExpression:         aws.String("ADD #count :one SET expiresAt = :exp"),
		ConditionExpression:      aws.String("attribute_not_exists(#count) OR #count < :limit"),
		ExpressionAttributeNames: map[string]string{"#count": "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one":   &types.AttributeValueMemberN{Value: "1"},
			":limit": &types.AttributeValueMemberN{Value: strconv.Itoa(limit)},
			":exp":   w.expiresAt(),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	switch {
	case dynamo.ConditionFailed(err):
		return d, nil
	case err != nil:
		return d, fmt.Errorf("ratelimit: count %s %s: %w", subject, class, err)
	}
	count, err := countOf(out.Attributes)
	if err != nil {
		return d, err
	}
	d.Allowed = true
	d.Remaining = limit - count
	return d, nil
}

// countOf reads the count attribute of an item or of UPDATED_NEW values; none is zero.
func countOf(item map[string]types.AttributeValue) (int, error) {
	v, ok := item["count"]
	if !ok {
		return 0, nil
	}
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("ratelimit: count is a %T, not a number", v)
	}
	count, err := strconv.Atoi(n.Value)
	if err != nil {
		return 0, fmt.Errorf("ratelimit: count %q: %w", n.Value, err)
	}
	return count, nil
}
