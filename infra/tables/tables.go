// Package tables creates the template's DynamoDB tables outside CloudFormation (DynamoDB Local
// for local runs and tests). Definitions are read from template.yaml, never restated here.
package tables

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/sam"
)

// waitLimit bounds how long a table may take to become active or to disappear.
const waitLimit = 2 * time.Minute

// Names maps each table's logical ID to its local name: prefix + logical ID.
func Names(t *sam.Template, prefix string) map[string]string {
	names := map[string]string{}
	for _, tb := range t.Tables() {
		names[tb.LogicalID] = prefix + tb.LogicalID
	}
	return names
}

// Create creates every AWS::DynamoDB::Table of the template under Names(t, prefix), waits until
// each is active and enables TTL where the template does. Tables that already exist are left as
// they are, so calling it again is harmless. It returns the names.
//
// Point-in-time recovery is not set up: it protects data in AWS and means nothing locally.
func Create(ctx context.Context, client *dynamodb.Client, t *sam.Template, prefix string) (map[string]string, error) {
	names := Names(t, prefix)
	defs := t.Tables()
	// Every integration test creates all tables, so they are created concurrently.
	errs := make([]error, len(defs))
	var wg sync.WaitGroup
	for i, def := range defs {
		wg.Go(func() { errs[i] = createTable(ctx, client, def, names[def.LogicalID]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return names, nil
}

func createTable(ctx context.Context, client *dynamodb.Client, def sam.Table, name string) error {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(def.KeySchema),
	}
	for _, a := range def.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.Name),
			AttributeType: types.ScalarAttributeType(a.Type),
		})
	}
	for _, ix := range def.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.KeySchema),
			Projection: projection(ix),
		})
	}
	for _, ix := range def.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.KeySchema),
			Projection: projection(ix),
		})
	}
	if _, err := client.CreateTable(ctx, in); err != nil {
		var inUse *types.ResourceInUseException
		if !errors.As(err, &inUse) {
			return fmt.Errorf("create table %s (%s): %w", name, def.LogicalID, err)
		}
	}
	// DynamoDB Local creates tables active at once; in AWS this takes seconds.
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 100*time.Millisecond, 5*time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, waitLimit); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	if def.TTLAttribute == "" {
		return nil
	}
	return enableTTL(ctx, client, name, def.TTLAttribute)
}

// enableTTL turns TTL on unless it already is: DynamoDB rejects enabling it twice.
func enableTTL(ctx context.Context, client *dynamodb.Client, name, attribute string) error {
	cur, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("describe TTL of %s: %w", name, err)
	}
	if d := cur.TimeToLiveDescription; d != nil && aws.ToString(d.AttributeName) == attribute &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(attribute),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("enable TTL on %s.%s: %w", name, attribute, err)
	}
	return nil
}

// Delete deletes the named tables and waits until they are gone. Missing tables are fine.
func Delete(ctx context.Context, client *dynamodb.Client, names map[string]string) error {
	sorted := make([]string, 0, len(names))
	for _, name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	errs := make([]error, len(sorted))
	var wg sync.WaitGroup
	for i, name := range sorted {
		wg.Go(func() { errs[i] = deleteTable(ctx, client, name) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func deleteTable(ctx context.Context, client *dynamodb.Client, name string) error {
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete table %s: %w", name, err)
	}
	// Waiting lets a Create that follows reuse the name; in AWS a deleting table still holds it.
	waiter := dynamodb.NewTableNotExistsWaiter(client, func(o *dynamodb.TableNotExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 100*time.Millisecond, 5*time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, waitLimit); err != nil {
		return fmt.Errorf("wait for deletion of table %s: %w", name, err)
	}
	return nil
}

func keySchema(keys []sam.Key) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, 0, len(keys))
	for _, k := range keys {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyType(k.KeyType)})
	}
	return out
}

func projection(ix sam.Index) *types.Projection {
	p := &types.Projection{ProjectionType: types.ProjectionType(ix.ProjectionType)}
	if len(ix.NonKeyAttributes) > 0 {
		p.NonKeyAttributes = ix.NonKeyAttributes
	}
	return p
}
