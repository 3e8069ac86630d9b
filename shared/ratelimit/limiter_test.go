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

func TestTakeCountsToTheLimit(t *testing.T) {
	ctx := context.Background()
	l, _, _ := newLimiter(t, windowStart.Add(17*time.Second))
	for i := 1; i <= 4; i++ {
		d, err := l.Take(ctx, "TENANT#a", ClassResolve, 3, time.Minute)
		if err != nil {
			t.Fatalf("take %d: %v", i, err)
		}
		want := Decision{Allowed: i <= 3, Limit: 3, Remaining: max(3-i, 0), Reset: windowStart.Add(time.Minute), RetryAfter: 43}
		if d != want {
			t.Errorf("take %d: got %+v, want %+v", i, d, want)
		}
	}
}

func TestTakeWindows(t *testing.T) {
	cases := []struct {
		name           string
		now            time.Time
		size           time.Duration
		wantReset      time.Time
		wantRetryAfter int
	}{
		{"window start", windowStart, time.Minute, windowStart.Add(time.Minute), 60},
		{"mid window", windowStart.Add(20 * time.Second), time.Minute, windowStart.Add(time.Minute), 40},
		{"half a second before the end rounds up", windowStart.Add(59500 * time.Millisecond), time.Minute, windowStart.Add(time.Minute), 1},
		{"hour windows align to the hour", windowStart.Add(90 * time.Minute), time.Hour, windowStart.Add(2 * time.Hour), 1800},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, _, _ := newLimiter(t, tc.now)
			d, err := l.Take(context.Background(), "IP#192.0.2.1", ClassAuthSession, 5, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Reset.Equal(tc.wantReset) || d.RetryAfter != tc.wantRetryAfter {
				t.Errorf("got Reset %v RetryAfter %d, want %v and %d", d.Reset, d.RetryAfter, tc.wantReset, tc.wantRetryAfter)
			}
		})
	}
}

func TestTakeWritesOneExpiringCounter(t *testing.T) {
	ctx := context.Background()
	l, db, _ := newLimiter(t, windowStart.Add(5*time.Second))
	for range 2 {
		if _, err := l.Take(ctx, "TENANT#a", ClassInteract, 10, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	out, err := db.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db.Tables["RateLimitsTable"])})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 {
		t.Fatalf("got %d items, want 1: %v", len(out.Items), out.Items)
	}
	item := out.Items[0]
	wantKey := "TENANT#a#interact#" + strconv.FormatInt(windowStart.Unix(), 10)
	if got := item["PK"].(*types.AttributeValueMemberS).Value; got != wantKey {
		t.Errorf("got PK %q, want %q", got, wantKey)
	}
	if got := item["count"].(*types.AttributeValueMemberN).Value; got != "2" {
		t.Errorf("got count %s, want 2", got)
	}
	exp, ok := item["expiresAt"].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("got expiresAt %v, want a number", item["expiresAt"])
	}
	got, _ := strconv.ParseInt(exp.Value, 10, 64)
	end := windowStart.Add(time.Minute).Unix()
	if got <= end || got > end+int64(expiryMargin/time.Second) {
		t.Errorf("got expiresAt %d, want just past the window end %d (within %v)", got, end, expiryMargin)
	}
}

func TestTakeRejectsBadArguments(t *testing.T) {
	l, _, _ := newLimiter(t, windowStart)
	cases := []struct {
		name           string
		subject, class string
		limit          int
		size           time.Duration
	}{
		{"no subject", "", ClassInteract, 10, time.Minute},
		{"no class", "TENANT#a", "", 10, time.Minute},
		{"zero limit", "TENANT#a", ClassInteract, 0, time.Minute},
		{"sub-second window", "TENANT#a", ClassInteract, 10, 500 * time.Millisecond},
		{"fractional window", "TENANT#a", ClassInteract, 10, 1500 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := l.Take(context.Background(), tc.subject, tc.class, tc.limit, tc.size)
			if err == nil || d.Allowed {
				t.Errorf("got %+v, %v; want a refusal and an error", d, err)
			}
		})
	}
}
