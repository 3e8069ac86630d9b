package dynamo

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/dynamotest"
)

func TestLease(t *testing.T) {
	db := dynamotest.New(t)
	ctx := context.Background()
	table := db.Tables["TasksTable"]
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "p"}, "SK": &types.AttributeValueMemberS{Value: "s"}}
	put := func(step string) {
		it := item("p", "s")
		it["step"] = &types.AttributeValueMemberN{Value: step}
		if _, err := db.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	put("1")
	now := time.Now()
	atStep := func(n string) Condition {
		return Condition{Expression: "#step = :step", Names: map[string]string{"#step": "step"},
			Values: map[string]types.AttributeValue{":step": &types.AttributeValueMemberN{Value: n}}}
	}
	a := Lease{Table: table, Key: key, ID: "a", Until: now.Add(30 * time.Second)}
	b := Lease{Table: table, Key: key, ID: "b", Until: now.Add(30 * time.Second)}
	steps := []struct {
		name string
		do   func() (bool, error)
		want bool
	}{
		{"a takes it", func() (bool, error) { return a.Acquire(ctx, db.Client, now, atStep("1")) }, true},
		{"b finds it held", func() (bool, error) { return b.Acquire(ctx, db.Client, now, atStep("1")) }, false},
		{"a takes it again", func() (bool, error) { return a.Acquire(ctx, db.Client, now, atStep("1")) }, false},
		{"b's release leaves a's lease", func() (bool, error) { return true, b.Release(ctx, db.Client) }, true},
		{"b still finds it held", func() (bool, error) { return b.Acquire(ctx, db.Client, now, atStep("1")) }, false},
		{"once it lapses, b takes it", func() (bool, error) { return b.Acquire(ctx, db.Client, now.Add(31*time.Second), atStep("1")) }, true},
		{"a releases nothing of b's", func() (bool, error) { return true, a.Release(ctx, db.Client) }, true},
		{"b releases it", func() (bool, error) { return true, b.Release(ctx, db.Client) }, true},
		{"a cannot take it when the item moved on", func() (bool, error) { return a.Acquire(ctx, db.Client, now, atStep("0")) }, false},
		{"a takes it", func() (bool, error) { return a.Acquire(ctx, db.Client, now, atStep("1")) }, true},
		{"a commit that replaces the item ends it", func() (bool, error) { put("2"); return b.Acquire(ctx, db.Client, now, atStep("2")) }, true},
	}
	for _, s := range steps {
		got, err := s.do()
		if err != nil || got != s.want {
			t.Fatalf("%s: got %v, %v; want %v", s.name, got, err, s.want)
		}
	}
}

// TestOwnLease: a lease in an item of its own is created with its expiry, held against others,
// and deleted by its holder's release only.
func TestOwnLease(t *testing.T) {
	db := dynamotest.New(t)
	ctx := context.Background()
	table := db.Tables["TasksTable"]
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "p"}, "SK": &types.AttributeValueMemberS{Value: "LEASE"}}
	now := time.Now()
	a := Lease{Table: table, Key: key, ID: "a", Until: now.Add(30 * time.Second), Own: true}
	b := Lease{Table: table, Key: key, ID: "b", Until: now.Add(30 * time.Second), Own: true}
	exists := func() bool {
		out, err := db.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	if ok, err := a.Acquire(ctx, db.Client, now, Condition{}); !ok || err != nil {
		t.Fatalf("a's first lease: %v, %v; want it taken", ok, err)
	}
	out, _ := db.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if exp, ok := out.Item["expiresAt"].(*types.AttributeValueMemberN); !ok || exp.Value == "" {
		t.Errorf("lease item = %v, want an expiresAt for TTL", out.Item)
	}
	if ok, _ := b.Acquire(ctx, db.Client, now, Condition{}); ok {
		t.Error("b took a's unexpired lease")
	}
	if err := b.Release(ctx, db.Client); err != nil || !exists() {
		t.Errorf("b's release: %v, item there %v; want a's lease kept", err, exists())
	}
	if err := a.Release(ctx, db.Client); err != nil || exists() {
		t.Errorf("a's release: %v, item there %v; want the item deleted", err, exists())
	}
	if ok, err := b.Acquire(ctx, db.Client, now, Condition{}); !ok || err != nil {
		t.Errorf("b after the release: %v, %v; want it taken", ok, err)
	}
}
