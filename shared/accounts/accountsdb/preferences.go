package accountsdb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/accounts"
)

// GetPreferences returns a user's saved preferences in a tenant and true, or
// accounts.DefaultPreferences() and false when none are saved. A field the stored document lacks
// (one added since it was saved) takes its default; a stored value that is no longer valid is an
// error rather than something to hand to the extension.
func (s *Store) GetPreferences(ctx context.Context, tenantID, userID string) (accounts.Preferences, bool, error) {
	p, ok, err := s.getPreferences(ctx, tenantID, userID)
	if err != nil {
		return accounts.Preferences{}, false, fmt.Errorf("get preferences of user %s in tenant %s: %w", userID, tenantID, err)
	}
	return p, ok, nil
}

func (s *Store) getPreferences(ctx context.Context, tenantID, userID string) (accounts.Preferences, bool, error) {
	res, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            key(prefsKeys(tenantID, userID)),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return accounts.Preferences{}, false, err
	}
	if res.Item == nil {
		return accounts.DefaultPreferences(), false, nil
	}
	item := prefsItem{Preferences: accounts.DefaultPreferences()}
	if err := attributevalue.UnmarshalMapWithOptions(res.Item, &item, func(o *attributevalue.DecoderOptions) { o.TagKey = "json" }); err != nil {
		return accounts.Preferences{}, false, err
	}
	if err := item.Validate(); err != nil {
		return accounts.Preferences{}, false, fmt.Errorf("stored document: %w", err)
	}
	return item.Preferences, true, nil
}

// PutPreferences saves a user's preferences in a tenant, replacing any saved before. Invalid
// preferences are refused (*accounts.ValidationError), so what is stored is always valid.
func (s *Store) PutPreferences(ctx context.Context, tenantID, userID string, p accounts.Preferences) error {
	if err := s.putPreferences(ctx, tenantID, userID, p); err != nil {
		return fmt.Errorf("put preferences of user %s in tenant %s: %w", userID, tenantID, err)
	}
	return nil
}

func (s *Store) putPreferences(ctx context.Context, tenantID, userID string, p accounts.Preferences) error {
	if err := p.Validate(); err != nil {
		return err
	}
	pk, sk := prefsKeys(tenantID, userID)
	item, err := attributevalue.MarshalMapWithOptions(prefsItem{PK: pk, SK: sk, Preferences: p}, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item})
	return err
}
