// Package cachedb stores the action cache's entries in the Tasks table.
//
//	entry   PK=TENANT#<t>#CACHE#<key>   SK=CACHE   expiresAt: the table's TTL
//
// The key is actioncache.EntryKey (a hash of the normalised task text), so the task's words
// are not part of any key. Reads treat an item past expiresAt as absent because TTL deletes
// lazily.
package cachedb

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/dynamo"
)

// Store is the entries of the Tasks table.
type Store struct {
	client *dynamodb.Client
	table  string
	Now    func() time.Time
}

// New returns a store over the Tasks table.
func New(client *dynamodb.Client, table string) *Store {
	return &Store{client: client, table: table, Now: time.Now}
}

// item is an entry as stored; the steps are one JSON string, read and written whole.
type item struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	Task        string `dynamodbav:"task"`
	Steps       string `dynamodbav:"steps"`
	Runs        int    `dynamodbav:"runs"`
	Revision    string `dynamodbav:"revision"`
	LearnedFrom string `dynamodbav:"learnedFrom"`
	UpdatedAt   string `dynamodbav:"updatedAt"`
	ExpiresAt   int64  `dynamodbav:"expiresAt"`
}

const sortKey = "CACHE"

func partition(tenantID, key string) string { return "TENANT#" + tenantID + "#CACHE#" + key }

func toItem(e actioncache.Entry) (item, error) {
	steps, err := json.Marshal(e.Steps)
	if err != nil {
		return item{}, err
	}
	return item{
		PK: partition(e.TenantID, e.Key), SK: sortKey, Task: e.Task, Steps: string(steps), Runs: e.Runs,
		Revision: e.Revision, LearnedFrom: e.LearnedFrom, UpdatedAt: e.UpdatedAt.UTC().Format(time.RFC3339Nano),
		ExpiresAt: e.ExpiresAt.Unix(),
	}, nil
}

func toEntry(tenantID, key string, it item) (actioncache.Entry, error) {
	e := actioncache.Entry{
		TenantID: tenantID, Key: key, Task: it.Task, Runs: it.Runs, Revision: it.Revision,
		LearnedFrom: it.LearnedFrom, ExpiresAt: time.Unix(it.ExpiresAt, 0).UTC(),
	}
	if err := json.Unmarshal([]byte(it.Steps), &e.Steps); err != nil {
		return actioncache.Entry{}, fmt.Errorf("decode steps: %w", err)
	}
	updated, err := dynamo.ParseTime(it.UpdatedAt)
	if err != nil {
		return actioncache.Entry{}, err
	}
	e.UpdatedAt = updated
	return e, nil
}

// GetEntry reads a live entry; an absent or expired one is actioncache.ErrNotFound.
func (s *Store) GetEntry(ctx context.Context, tenantID, key string) (actioncache.Entry, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: dynamo.Key(partition(tenantID, key), sortKey)})
	if err != nil {
		return actioncache.Entry{}, fmt.Errorf("get cache entry: %w", err)
	}
	if out.Item == nil {
		return actioncache.Entry{}, actioncache.ErrNotFound
	}
	var it item
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return actioncache.Entry{}, fmt.Errorf("decode cache entry: %w", err)
	}
	if it.ExpiresAt <= s.Now().Unix() {
		return actioncache.Entry{}, actioncache.ErrNotFound
	}
	return toEntry(tenantID, key, it)
}

// PutEntry writes the entry whole, replacing any version of it.
func (s *Store) PutEntry(ctx context.Context, e actioncache.Entry) error {
	it, err := toItem(e)
	if err != nil {
		return fmt.Errorf("encode cache entry: %w", err)
	}
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return fmt.Errorf("encode cache entry: %w", err)
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: av}); err != nil {
		return fmt.Errorf("put cache entry: %w", err)
	}
	return nil
}

// DeleteEntry removes the entry if it still has this revision: a version written since by
// another run is kept. Any revision goes when revision is "".
func (s *Store) DeleteEntry(ctx context.Context, tenantID, key, revision string) error {
	in := &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: dynamo.Key(partition(tenantID, key), sortKey)}
	if revision != "" {
		in.ConditionExpression = aws.String("revision = :r")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":r": dynamo.Str(revision)}
	}
	_, err := s.client.DeleteItem(ctx, in)
	switch {
	case dynamo.ConditionFailed(err):
		return actioncache.ErrNotFound
	case err != nil:
		return fmt.Errorf("delete cache entry: %w", err)
	}
	return nil
}
