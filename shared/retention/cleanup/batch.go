package cleanup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// batchSize is BatchWriteItem's limit of requests per call.
const batchSize = 25

// Retries of the items a batch leaves unprocessed (throttling): exponential backoff from
// firstBackoff up to maxBackoff, with full jitter so that retries spread out instead of
// arriving together; about 6 s at most in all.
const (
	batchAttempts = 8
	firstBackoff  = 50 * time.Millisecond
	maxBackoff    = 2 * time.Second
)

// batchDelete deletes up to batchSize items of a table by key, resending what DynamoDB leaves
// unprocessed, and returns the keys it deleted (all of them unless it also returns an error).
func batchDelete(ctx context.Context, db DB, table string, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	requests := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		requests[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"PK": k["PK"], "SK": k["SK"]}}}
	}
	var deleted []map[string]types.AttributeValue
	for attempt := 1; ; attempt++ {
		out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{table: requests},
		})
		if err != nil {
			return deleted, fmt.Errorf("delete batch of %d: %w", len(requests), err)
		}
		left := out.UnprocessedItems[table]
		deleted = append(deleted, processed(requests, left)...)
		if len(left) == 0 {
			return deleted, nil
		}
		if attempt == batchAttempts {
			return deleted, fmt.Errorf("%d deletes still unprocessed after %d attempts", len(left), attempt)
		}
		requests = left
		backoff := min(firstBackoff<<(attempt-1), maxBackoff)
		t := time.NewTimer(rand.N(backoff) + time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return deleted, ctx.Err()
		case <-t.C:
		}
	}
}

// processed is the keys of requests that are not among the unprocessed ones.
func processed(requests, unprocessed []types.WriteRequest) []map[string]types.AttributeValue {
	left := map[[2]string]bool{}
	for _, w := range unprocessed {
		left[keyID(w.DeleteRequest.Key)] = true
	}
	var done []map[string]types.AttributeValue
	for _, w := range requests {
		if !left[keyID(w.DeleteRequest.Key)] {
			done = append(done, w.DeleteRequest.Key)
		}
	}
	return done
}

func keyID(k map[string]types.AttributeValue) [2]string {
	var id [2]string
	for i, name := range []string{"PK", "SK"} {
		if s, ok := k[name].(*types.AttributeValueMemberS); ok {
			id[i] = s.Value
		}
	}
	return id
}
