package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestFailures(t *testing.T) {
	ctx := context.Background()
	const window = 15 * time.Minute
	l, db, clock := newLimiter(t, windowStart.Add(3*time.Minute))
	wantReset := windowStart.Add(window)

	failures := func(subject string) int {
		t.Helper()
		n, reset, err := l.Failures(ctx, subject, window)
		if err != nil {
			t.Fatal(err)
		}
		if !reset.Equal(wantReset) {
			t.Errorf("got reset %v, want the window end %v", reset, wantReset)
		}
		return n
	}

	if got := failures("USER#a@example.com"); got != 0 {
		t.Errorf("before any failure: got %d, want 0", got)
	}
	for i := 1; i <= 3; i++ {
		n, err := l.AddFailure(ctx, "USER#a@example.com", window)
		if err != nil {
			t.Fatal(err)
		}
		if n != i {
			t.Errorf("AddFailure %d: got %d, want %d", i, n, i)
		}
	}
	if got := failures("USER#a@example.com"); got != 3 {
		t.Errorf("after 3 failures: got %d, want 3", got)
	}
	if got := failures("USER#b@example.com"); got != 0 {
		t.Errorf("another subject: got %d, want 0", got)
	}

	out, err := db.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db.Tables["RateLimitsTable"])})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 {
		t.Fatalf("got %d items, want 1", len(out.Items))
	}
	wantExp := strconv.FormatInt(wantReset.Add(expiryMargin).Unix(), 10)
	if exp, ok := out.Items[0]["expiresAt"].(*types.AttributeValueMemberN); !ok || exp.Value != wantExp {
		t.Errorf("got expiresAt %v, want %s (the window end plus %v)", out.Items[0]["expiresAt"], wantExp, expiryMargin)
	}

	if err := l.ClearFailures(ctx, "USER#a@example.com", window); err != nil {
		t.Fatal(err)
	}
	if got := failures("USER#a@example.com"); got != 0 {
		t.Errorf("after ClearFailures: got %d, want 0", got)
	}

	if _, err := l.AddFailure(ctx, "USER#a@example.com", window); err != nil {
		t.Fatal(err)
	}
	clock.t = clock.t.Add(window)
	wantReset = wantReset.Add(window)
	if got := failures("USER#a@example.com"); got != 0 {
		t.Errorf("next window: got %d, want 0", got)
	}
}
