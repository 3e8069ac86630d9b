package accountsdb

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/dynamo"
)

// tokenHash is the shape of accounts.HashToken. Checking it keeps a raw token, passed by
// mistake, from ever being written.
var tokenHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// PutToken stores a new token record. A record with that hash already existing is an error, not
// an overwrite: it would hand one token to two sessions.
func (s *Store) PutToken(ctx context.Context, t accounts.TokenRecord) error {
	if !tokenHash.MatchString(t.Hash) {
		return errors.New("put token: hash is not a hex SHA-256")
	}
	t.CreatedAt, t.ExpiresAt = t.CreatedAt.UTC(), t.ExpiresAt.UTC()
	item, err := attributevalue.MarshalMap(newTokenItem(t))
	if err != nil {
		return fmt.Errorf("put token for user %s: %w", t.UserID, err)
	}
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item, ConditionExpression: notExists}); err != nil {
		return fmt.Errorf("put token for user %s: %w", t.UserID, err)
	}
	return nil
}

// GetToken returns the record of a token hash, or accounts.ErrNotFound when there is none or it
// has expired by the Store's clock: TTL deletion lags by up to days, so it decides nothing.
func (s *Store) GetToken(ctx context.Context, hash string) (accounts.TokenRecord, error) {
	var item tokenItem
	if err := s.getItem(ctx, dynamo.Key(tokenKeys(hash)), &item); err != nil {
		return accounts.TokenRecord{}, fmt.Errorf("get token: %w", err)
	}
	rec := item.record(hash)
	if rec.Expired(s.now()) {
		return accounts.TokenRecord{}, fmt.Errorf("get token: expired at %s: %w", rec.ExpiresAt.Format(time.RFC3339), accounts.ErrNotFound)
	}
	return rec, nil
}

// DeleteToken deletes a token record; deleting one that is gone already succeeds, so a repeated
// logout is not an error.
func (s *Store) DeleteToken(ctx context.Context, hash string) error {
	if _, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: dynamo.Key(tokenKeys(hash))}); err != nil {
		return fmt.Errorf("delete token: %w", err)
	}
	return nil
}

// DeleteUserTokens deletes every token of a user.
//
// It finds them through GSI1, which is eventually consistent: a token issued a moment before
// may be missed. Revocation is therefore also the disabled flag, which token checks read.
func (s *Store) DeleteUserTokens(ctx context.Context, userID string) error {
	if err := s.deleteUserTokens(ctx, userID); err != nil {
		return fmt.Errorf("delete tokens of user %s: %w", userID, err)
	}
	return nil
}

// batchSize is BatchWriteItem's limit of requests per call.
const batchSize = 25

func (s *Store) deleteUserTokens(ctx context.Context, userID string) error {
	keys, err := s.queryIndex(ctx, userTokensPartition(userID), aws.String("PK, SK"))
	if err != nil {
		return err
	}
	for start := 0; start < len(keys); start += batchSize {
		batch := keys[start:min(start+batchSize, len(keys))]
		requests := make([]types.WriteRequest, len(batch))
		for i, k := range batch {
			requests[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
		}
		if err := s.batchWrite(ctx, requests); err != nil {
			return err
		}
	}
	return nil
}

// Retries of a batch's unprocessed items (throttling), with exponential backoff from
// firstBackoff: about 6 s in all before giving up.
const (
	batchAttempts = 8
	firstBackoff  = 50 * time.Millisecond
)

// batchWrite writes up to batchSize requests, resending the ones DynamoDB leaves unprocessed.
func (s *Store) batchWrite(ctx context.Context, requests []types.WriteRequest) error {
	backoff := firstBackoff
	for attempt := 1; ; attempt++ {
		out, err := s.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{s.table: requests},
		})
		if err != nil {
			return err
		}
		requests = out.UnprocessedItems[s.table]
		if len(requests) == 0 {
			return nil
		}
		if attempt == batchAttempts {
			return fmt.Errorf("%d writes still unprocessed after %d attempts", len(requests), attempt)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}
