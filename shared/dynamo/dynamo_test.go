package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func item(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK":   &types.AttributeValueMemberS{Value: pk},
		"SK":   &types.AttributeValueMemberS{Value: sk},
		"body": &types.AttributeValueMemberS{Value: strings.Repeat("x", 2000)},
	}
}

func putNew(table string, it map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")}}
}

var errFirst, errSecond = errors.New("first lost"), errors.New("second lost")

func TestWriteNamesTheFailedCondition(t *testing.T) {
	db := dynamotest.New(t)
	ctx := context.Background()
	table := db.Tables["TasksTable"]
	if err := Write(ctx, db.Client, []Item{{Write: putNew(table, item("a", "1")), OnConditionFailed: errFirst}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		items []Item
		want  error
	}{
		{"first item's condition", []Item{{putNew(table, item("a", "1")), errFirst}, {putNew(table, item("b", "1")), errSecond}}, errFirst},
		{"second item's condition", []Item{{putNew(table, item("c", "1")), errFirst}, {putNew(table, item("a", "1")), errSecond}}, errSecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := Write(ctx, db.Client, tc.items); !errors.Is(err, tc.want) {
				t.Errorf("Write() error = %v, want %v", err, tc.want)
			}
		})
	}
	out, _ := db.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "b"}, "SK": &types.AttributeValueMemberS{Value: "1"}}})
	if out.Item != nil {
		t.Errorf("a canceled transaction wrote an item")
	}
	if err := Write(ctx, db.Client, make([]Item, MaxItems+1)); err == nil {
		t.Errorf("Write() of %d items succeeded, want an error", MaxItems+1)
	}
}

func TestBatchGetAndQueryAll(t *testing.T) {
	db := dynamotest.New(t)
	ctx := context.Background()
	table := db.Tables["TasksTable"]
	var keys []map[string]types.AttributeValue
	// 250 items of ~2 KB: more than one BatchGetItem and more than one 1 MB query page.
	for i := range 250 {
		sk := fmt.Sprintf("%04d", i)
		if _, err := db.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("p", sk)}); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "p"}, "SK": &types.AttributeValueMemberS{Value: sk}})
	}
	keys = append(keys, map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "absent"}, "SK": &types.AttributeValueMemberS{Value: "0"}})
	got, err := BatchGet(ctx, db.Client, table, keys, types.KeysAndAttributes{ProjectionExpression: aws.String("SK")})
	if err != nil || len(got) != 250 {
		t.Errorf("BatchGet() = %d items, %v; want 250", len(got), err)
	}
	all, err := QueryAll(ctx, db.Client, &dynamodb.QueryInput{
		TableName: aws.String(table), KeyConditionExpression: aws.String("PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p"}},
		Limit:                     aws.Int32(40),
	})
	if err != nil || len(all) != 250 {
		t.Errorf("QueryAll() = %d items, %v; want all 250 across pages", len(all), err)
	}
}

func TestConditionFailed(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"a failed condition", &types.ConditionalCheckFailedException{}, true},
		{"a failed condition, wrapped", fmt.Errorf("put: %w", &types.ConditionalCheckFailedException{}), true},
		{"a cancelled transaction", &types.TransactionCanceledException{}, false},
		{"another error", errors.New("throttled"), false},
		{"no error", nil, false},
	}
	for _, tc := range tests {
		if got := ConditionFailed(tc.err); got != tc.want {
			t.Errorf("%s: ConditionFailed(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
