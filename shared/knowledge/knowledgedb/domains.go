package knowledgedb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/knowledge"
)

// Domains stores the tenants' allowed-domain patterns in the Accounts table, beside the tenant.
type Domains struct {
	client *dynamodb.Client
	table  string
	// Now stamps createdAt; tests replace it.
	Now func() time.Time
}

// NewDomains returns a Domains on the Accounts table.
func NewDomains(client *dynamodb.Client, accountsTable string) *Domains {
	return &Domains{client: client, table: accountsTable, Now: time.Now}
}

type domainItem struct {
	PK, SK    string
	Pattern   string    `dynamodbav:"pattern"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
}

// AddDomain allows a pattern for a tenant, or returns knowledge.ErrDomainExists.
func (d *Domains) AddDomain(ctx context.Context, tenantID string, p knowledge.Pattern) error {
	if err := d.addDomain(ctx, tenantID, p); err != nil {
		return fmt.Errorf("add domain %s for tenant %s: %w", p, tenantID, err)
	}
	return nil
}

func (d *Domains) addDomain(ctx context.Context, tenantID string, p knowledge.Pattern) error {
	if err := checkTenant(tenantID); err != nil {
		return err
	}
	item, err := attributevalue.MarshalMap(domainItem{
		PK: tenantPartition(tenantID), SK: domainPrefix + p.String(), Pattern: p.String(), CreatedAt: d.Now().UTC(),
	})
	if err != nil {
		return err
	}
	_, err = d.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           &d.table,
		Item:                item,
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	if dynamo.ConditionFailed(err) {
		return knowledge.ErrDomainExists
	}
	return err
}

// RemoveDomain stops allowing a pattern, or returns knowledge.ErrNotFound. The knowledge stored
// under the pattern stays (and is used again if the pattern is added back).
func (d *Domains) RemoveDomain(ctx context.Context, tenantID string, p knowledge.Pattern) error {
	if err := checkTenant(tenantID); err != nil {
		return fmt.Errorf("remove domain %s of tenant %s: %w", p, tenantID, err)
	}
	_, err := d.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:           &d.table,
		Key:                 dynamo.Key(tenantPartition(tenantID), domainPrefix+p.String()),
		ConditionExpression: aws.String("attribute_exists(PK)"),
	})
	if dynamo.ConditionFailed(err) {
		err = knowledge.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("remove domain %s of tenant %s: %w", p, tenantID, err)
	}
	return nil
}

// ListDomains returns a tenant's patterns in sort-key order. It reads with eventual
// consistency: a pattern added a moment ago may take about a second to count.
func (d *Domains) ListDomains(ctx context.Context, tenantID string) ([]knowledge.Pattern, error) {
	if err := checkTenant(tenantID); err != nil {
		return nil, fmt.Errorf("list domains of tenant %s: %w", tenantID, err)
	}
	in := prefixQuery(d.table, tenantPartition(tenantID), domainPrefix)
	in.ProjectionExpression = aws.String("#p")
	in.ExpressionAttributeNames = map[string]string{"#p": "pattern"}
	items, err := query(ctx, d.client, in)
	if err != nil {
		return nil, fmt.Errorf("list domains of tenant %s: %w", tenantID, err)
	}
	patterns := make([]knowledge.Pattern, 0, len(items))
	for _, it := range items {
		var item domainItem
		if err := attributevalue.UnmarshalMap(it, &item); err != nil {
			return nil, fmt.Errorf("list domains of tenant %s: %w", tenantID, err)
		}
		p, err := knowledge.ParsePattern(item.Pattern)
		if err != nil {
			return nil, fmt.Errorf("list domains of tenant %s: stored pattern %q: %w", tenantID, item.Pattern, err)
		}
		patterns = append(patterns, p)
	}
	return patterns, nil
}
