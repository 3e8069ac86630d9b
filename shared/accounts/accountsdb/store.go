// Package accountsdb stores the accounts domain (users, tenants, memberships, access tokens and
// preferences) in the single Accounts table of template.yaml.
//
// Items, all keyed by a type prefix so that one table holds them without collisions:
//
//	user           PK=USER#<userId>            SK=PROFILE          GSI1PK=USERS                 GSI1SK=<email>
//	email claim    PK=EMAIL#<normalized email> SK=EMAIL            ownerId=<userId>
//	tenant         PK=TENANT#<tenantId>        SK=TENANT           name, kind, tier
//	org-name claim PK=ORGNAME#<lower name>     SK=ORGNAME          ownerId=<tenantId>
//	membership     PK=TENANT#<orgId>           SK=MEMBER#<userId>  GSI1PK=USER#<userId>#ORGS    GSI1SK=<createdAt>#<orgId>
//	token          PK=TOKEN#<sha256 hex>       SK=TOKEN            GSI1PK=USER#<userId>#TOKENS  GSI1SK=<createdAt>
//	preferences    PK=TENANT#<tenantId>        SK=PREFS#<userId>
//
// The claim items exist only to make a value unique: a transaction writes them with
// attribute_not_exists beside the item they belong to. Timestamps in sort keys have a fixed
// width (sortableTime) so that they sort as strings; expiresAt is epoch seconds, the table's TTL.
package accountsdb

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/dynamo"
)

// Store reads and writes the accounts table.
type Store struct {
	client *dynamodb.Client
	table  string
	// Now is the clock of timestamps and of token expiry; tests replace it.
	Now func() time.Time
}

// New returns a Store on table with the system clock.
func New(client *dynamodb.Client, table string) *Store {
	return &Store{client: client, table: table, Now: time.Now}
}

// now is the clock in UTC and without a monotonic reading, so that a value returned to a caller
// equals the one read back.
func (s *Store) now() time.Time { return s.Now().UTC() }

const (
	gsi1 = "GSI1"
	// usersPartition is the GSI1 partition that lists every user, by e-mail.
	usersPartition = "USERS"
)

// The keys of each item type, as (PK, SK).
func userKeys(id string) (string, string)     { return "USER#" + id, "PROFILE" }
func emailKeys(email string) (string, string) { return "EMAIL#" + email, "EMAIL" }
func tenantKeys(id string) (string, string)   { return "TENANT#" + id, "TENANT" }
func orgNameKeys(name string) (string, string) {
	return "ORGNAME#" + strings.ToLower(strings.TrimSpace(name)), "ORGNAME"
}
func tokenKeys(hash string) (string, string) { return "TOKEN#" + hash, "TOKEN" }
func memberKeys(orgID, userID string) (string, string) {
	return "TENANT#" + orgID, "MEMBER#" + userID
}
func prefsKeys(tenantID, userID string) (string, string) {
	return "TENANT#" + tenantID, "PREFS#" + userID
}

// The GSI1 partitions of a user's memberships and tokens.
func userOrgsPartition(userID string) string   { return "USER#" + userID + "#ORGS" }
func userTokensPartition(userID string) string { return "USER#" + userID + "#TOKENS" }

// Conditions of every write that creates or changes an item.
var (
	notExists = aws.String("attribute_not_exists(PK)")
	exists    = aws.String("attribute_exists(PK)")
)

// getItem reads an item with strong consistency (a login right after signup must see the user)
// into out, or returns accounts.ErrNotFound.
func (s *Store) getItem(ctx context.Context, k map[string]types.AttributeValue, out any) error {
	res, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            k,
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return err
	}
	if res.Item == nil {
		return accounts.ErrNotFound
	}
	return attributevalue.UnmarshalMap(res.Item, out)
}

// queryIndex returns every item of GSI1 partition pk, in sort-key order, following pages.
func (s *Store) queryIndex(ctx context.Context, pk string, projection *string) ([]map[string]types.AttributeValue, error) {
	return dynamo.QueryAll(ctx, s.client, &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(gsi1),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ProjectionExpression:      projection,
	})
}

// transact runs writes as one transaction; reasons[i] is what a failed condition of write i
// means (nil: it cannot fail).
func (s *Store) transact(ctx context.Context, writes []types.TransactWriteItem, reasons ...error) error {
	items := make([]dynamo.Item, len(writes))
	for i, w := range writes {
		items[i].Write = w
		if i < len(reasons) {
			items[i].OnConditionFailed = reasons[i]
		}
	}
	return dynamo.Write(ctx, s.client, items)
}

// putNew returns a transaction's writes of items that must not exist yet.
func putNew(table string, items ...any) ([]types.TransactWriteItem, error) {
	writes := make([]types.TransactWriteItem, len(items))
	for i, item := range items {
		av, err := attributevalue.MarshalMap(item)
		if err != nil {
			return nil, err
		}
		writes[i] = types.TransactWriteItem{Put: &types.Put{TableName: &table, Item: av, ConditionExpression: notExists}}
	}
	return writes, nil
}

// setAttribute sets one attribute of an existing item, or returns accounts.ErrNotFound.
func (s *Store) setAttribute(ctx context.Context, k map[string]types.AttributeValue, name string, v types.AttributeValue) error {
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       k,
		UpdateExpression:          aws.String("SET #a = :v"),
		ConditionExpression:       exists,
		ExpressionAttributeNames:  map[string]string{"#a": name},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": v},
	})
	if dynamo.ConditionFailed(err) {
		return accounts.ErrNotFound
	}
	return err
}
