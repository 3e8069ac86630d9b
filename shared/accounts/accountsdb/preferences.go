package accountsdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/dynamo"
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
		Key:            dynamo.Key(prefsKeys(tenantID, userID)),
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

// UpdatePreferences saves a user's preferences in a tenant by merging: the fields the patch
// sets take their new values, the fields it resets are removed (read back as defaults), and the
// others keep what was saved. It is one UpdateItem, so two saves of different fields never undo
// each other. It returns the whole document as saved.
func (s *Store) UpdatePreferences(ctx context.Context, tenantID, userID string, patch accounts.PreferencesPatch) (accounts.Preferences, error) {
	p, err := s.updatePreferences(ctx, tenantID, userID, patch)
	if err != nil {
		return accounts.Preferences{}, fmt.Errorf("update preferences of user %s in tenant %s: %w", userID, tenantID, err)
	}
	return p, nil
}

func (s *Store) updatePreferences(ctx context.Context, tenantID, userID string, patch accounts.PreferencesPatch) (accounts.Preferences, error) {
	if len(patch.Set) == 0 && len(patch.Reset) == 0 {
		p, _, err := s.getPreferences(ctx, tenantID, userID)
		return p, err
	}
	if err := patch.Values.Validate(); err != nil {
		return accounts.Preferences{}, err
	}
	values, err := attributevalue.MarshalMapWithOptions(patch.Values, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
	if err != nil {
		return accounts.Preferences{}, err
	}
	names := map[string]string{}
	vals := map[string]types.AttributeValue{}
	var sets, removes []string
	for i, field := range patch.Set {
		n, v := fmt.Sprintf("#s%d", i), fmt.Sprintf(":s%d", i)
		names[n], vals[v] = field, values[field]
		sets = append(sets, n+" = "+v)
	}
	for i, field := range patch.Reset {
		n := fmt.Sprintf("#r%d", i)
		names[n] = field
		removes = append(removes, n)
	}
	var expr []string
	if len(sets) > 0 {
		expr = append(expr, "SET "+strings.Join(sets, ", "))
	}
	if len(removes) > 0 {
		expr = append(expr, "REMOVE "+strings.Join(removes, ", "))
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      dynamo.Key(prefsKeys(tenantID, userID)),
		UpdateExpression:         aws.String(strings.Join(expr, " ")),
		ExpressionAttributeNames: names,
		ReturnValues:             types.ReturnValueAllNew,
	}
	if len(vals) > 0 {
		in.ExpressionAttributeValues = vals
	}
	out, err := s.client.UpdateItem(ctx, in)
	if err != nil {
		return accounts.Preferences{}, err
	}
	item := prefsItem{Preferences: accounts.DefaultPreferences()}
	if err := attributevalue.UnmarshalMapWithOptions(out.Attributes, &item, func(o *attributevalue.DecoderOptions) { o.TagKey = "json" }); err != nil {
		return accounts.Preferences{}, err
	}
	return item.Preferences, nil
}
