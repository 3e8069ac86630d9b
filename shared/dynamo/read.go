package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Reader is the part of the DynamoDB client the read helpers need.
type Reader interface {
	dynamodb.QueryAPIClient
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// QueryAll returns every item of a Query, following pages.
func QueryAll(ctx context.Context, db dynamodb.QueryAPIClient, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	p := dynamodb.NewQueryPaginator(db, in)
	var items []map[string]types.AttributeValue
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		items = append(items, page.Items...)
	}
	return items, nil
}

// BatchGetMax is DynamoDB's limit of keys in one BatchGetItem.
const BatchGetMax = 100

// batchGetAttempts bounds the resends of unprocessed keys (throttling), 50 ms apart and doubling.
const batchGetAttempts = 5

// BatchGet reads the items of keys from one table in batches of BatchGetMax, resending the keys
// DynamoDB leaves unprocessed. Items come back in no particular order; absent keys are left out.
// spec sets the read's consistency and projection (its Keys are filled in here).
func BatchGet(ctx context.Context, db Reader, table string, keys []map[string]types.AttributeValue, spec types.KeysAndAttributes) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for start := 0; start < len(keys); start += BatchGetMax {
		ka := spec
		ka.Keys = keys[start:min(start+BatchGetMax, len(keys))]
		request := map[string]types.KeysAndAttributes{table: ka}
		backoff := 50 * time.Millisecond
		for attempt := 1; ; attempt++ {
			out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: request})
			if err != nil {
				return nil, err
			}
			items = append(items, out.Responses[table]...)
			request = out.UnprocessedKeys
			if len(request) == 0 {
				break
			}
			if attempt == batchGetAttempts {
				return nil, fmt.Errorf("%d reads still unprocessed after %d attempts", len(request[table].Keys), attempt)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(backoff):
			}
			backoff *= 2
		}
	}
	return items, nil
}
