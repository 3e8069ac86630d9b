// Package knowledgedb stores the knowledge domain in DynamoDB: the tenants' allowed-domain
// patterns in the Accounts table, and the built-in knowledge store's documents and chunks in the
// Knowledge table.
//
// Items:
//
//	Accounts table
//	allowed domain  PK=TENANT#<tenantId>                      SK=DOMAIN#<pattern>
//	Knowledge table
//	document        PK=TENANT#<tenantId>#KNOWLEDGE#<pattern>  SK=DOC#<documentId>
//	                GSI1PK=TENANT#<tenantId>#DOCS             GSI1SK=<pattern>#<source file name>
//	chunk           PK=TENANT#<tenantId>#KNOWLEDGE#<pattern>  SK=CHUNK#<documentId>#<generation>#<position>
//
// All of a domain pattern's documents and chunks share one partition, so one Query reads what
// a lookup ranks. A document item names its current generation; chunks of any other
// generation are invisible to readers. Re-ingesting a file writes the new generation's chunks
// first, then switches the document item to it (conditionally, so two concurrent ingests can't
// both win), then deletes the old chunks: a reader sees the old version or the new one, never a
// mix, and chunks left by an interrupted ingest are invisible and cleaned up by the next one.
package knowledgedb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/knowledge"
)

func tenantPartition(tenantID string) string { return "TENANT#" + tenantID }

func domainPartition(tenantID, pattern string) string {
	return "TENANT#" + tenantID + "#KNOWLEDGE#" + pattern
}

func docsIndexPartition(tenantID string) string { return "TENANT#" + tenantID + "#DOCS" }

const (
	gsi1          = "GSI1"
	domainPrefix  = "DOMAIN#"
	docPrefix     = "DOC#"
	chunkPrefix   = "CHUNK#"
	batchSize     = 25 // BatchWriteItem's limit
	batchAttempts = 8
	firstBackoff  = 50 * time.Millisecond
)

// checkTenant refuses a tenant ID that could not scope a key.
func checkTenant(tenantID string) error {
	if !knowledge.ValidTenantID(tenantID) {
		return &knowledge.ValidationError{Field: "tenantId", Reason: "must be 1 to 128 letters, digits or -_.:@"}
	}
	return nil
}

// query returns every item of a Query, following pages.
func query(ctx context.Context, client *dynamodb.Client, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	return dynamo.QueryAll(ctx, client, in)
}

// prefixQuery is a Query of the items of partition pk whose sort key starts with prefix.
func prefixQuery(table, pk, prefix string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": dynamo.Str(pk), ":prefix": dynamo.Str(prefix)},
	}
}

// batchWrite sends requests in batches, resending what DynamoDB leaves unprocessed (throttling)
// with exponential backoff, about 6 s in all before giving up.
func batchWrite(ctx context.Context, client *dynamodb.Client, table string, requests []types.WriteRequest) error {
	for start := 0; start < len(requests); start += batchSize {
		batch := requests[start:min(start+batchSize, len(requests))]
		backoff := firstBackoff
		for attempt := 1; ; attempt++ {
			out, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{table: batch},
			})
			if err != nil {
				return err
			}
			batch = out.UnprocessedItems[table]
			if len(batch) == 0 {
				break
			}
			if attempt == batchAttempts {
				return fmt.Errorf("%d writes still unprocessed after %d attempts", len(batch), attempt)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(backoff):
			}
			backoff *= 2
		}
	}
	return nil
}
