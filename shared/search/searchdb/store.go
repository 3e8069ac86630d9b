// Package searchdb keeps web search results in the Tasks table for a short while, so that every
// Lambda instance answers a tenant's repeated search from one cache.
//
// Items (every key starts with the tenant):
//
//	search results   PK=TENANT#<t>#SEARCH#<key>   SK=SEARCH   Retention: EXPIRES#<shard> / <expiresAt>
//
// key is search.CacheKey (a SHA-256 of the normalized query, the domain and the result count),
// so a tenant's results are only ever read back under that tenant. Items carry expiresAt (epoch
// seconds, the table's TTL attribute); reads treat an item past it as absent because TTL deletes
// lazily, and the Retention index lets the cleanup remove what TTL has not.
package searchdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/search"
)

// sortKey is the sort key of every search item.
const sortKey = "SEARCH"

// Store is the search cache in the Tasks table; it implements search.Cache.
type Store struct {
	client *dynamodb.Client
	table  string
	Now    func() time.Time
}

var _ search.Cache = (*Store)(nil)

// New returns a store over the Tasks table.
func New(client *dynamodb.Client, table string) *Store {
	return &Store{client: client, table: table, Now: time.Now}
}

func partitionKey(tenantID, key string) string { return "TENANT#" + tenantID + "#SEARCH#" + key }

type resultItem struct {
	Title   string  `dynamodbav:"title"`
	URL     string  `dynamodbav:"url"`
	Content string  `dynamodbav:"content"`
	Score   float64 `dynamodbav:"score"`
}

func recordOf(r search.Item) resultItem {
	return resultItem{Title: r.Title, URL: r.URL, Content: r.Content, Score: r.Score}
}

func resultOf(r resultItem) search.Item {
	return search.Item{Title: r.Title, URL: r.URL, Content: r.Content, Score: r.Score}
}

type item struct {
	PK          string       `dynamodbav:"PK"`
	SK          string       `dynamodbav:"SK"`
	RetentionPK string       `dynamodbav:"RetentionPK"`
	RetentionSK string       `dynamodbav:"RetentionSK"`
	TenantID    string       `dynamodbav:"tenantId"`
	Query       string       `dynamodbav:"query"`
	Scope       string       `dynamodbav:"scope"`
	Domain      string       `dynamodbav:"domain,omitempty"`
	Results     []resultItem `dynamodbav:"results"`
	CreatedAt   string       `dynamodbav:"createdAt"`
	ExpiresAt   int64        `dynamodbav:"expiresAt"`
}

var errNoKey = errors.New("search cache: tenant and key are required")

// Get returns the tenant's live results under key; ok is false when there are none or they
// have expired. A cache tolerates a slightly stale read, so the read is eventually consistent.
func (s *Store) Get(ctx context.Context, tenantID, key string) (search.Results, bool, error) {
	if tenantID == "" || key == "" {
		return search.Results{}, false, errNoKey
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table),
		Key:       dynamo.Key(partitionKey(tenantID, key), sortKey),
	})
	if err != nil {
		return search.Results{}, false, fmt.Errorf("get search results: %w", err)
	}
	if out.Item == nil {
		return search.Results{}, false, nil
	}
	var it item
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return search.Results{}, false, fmt.Errorf("read search results: %w", err)
	}
	if it.ExpiresAt <= s.Now().Unix() {
		return search.Results{}, false, nil
	}
	return search.Results{Query: it.Query, Scope: search.Scope(it.Scope), Domain: it.Domain, Items: dynamo.Convert(it.Results, resultOf)}, true, nil
}

// Put stores the tenant's results under key until expiresAt, replacing what was there.
func (s *Store) Put(ctx context.Context, tenantID, key string, r search.Results, expiresAt time.Time) error {
	if tenantID == "" || key == "" {
		return errNoKey
	}
	pk := partitionKey(tenantID, key)
	it := item{
		PK: pk, SK: sortKey, TenantID: tenantID, Query: r.Query, Scope: string(r.Scope), Domain: r.Domain,
		// An empty list, never a null one, as every item so far was written.
		Results:   append([]resultItem{}, dynamo.Convert(r.Items, recordOf)...),
		CreatedAt: s.Now().UTC().Format(time.RFC3339Nano), ExpiresAt: expiresAt.Unix(),
	}
	it.RetentionPK, it.RetentionSK = expiry.Keys(pk, expiresAt)
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return fmt.Errorf("write search results: %w", err)
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: av}); err != nil {
		return fmt.Errorf("write search results: %w", err)
	}
	return nil
}
