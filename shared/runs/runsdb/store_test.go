package runsdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/retention/expiry"
	"github.com/screenagent/backend/shared/runs"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

type fixture struct {
	store *Store
	db    *dynamotest.DB
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	db := dynamotest.New(t)
	// Real time: DynamoDB Local runs TTL, so items must not look expired to it.
	f := &fixture{db: db, now: time.Now().UTC().Truncate(time.Second)}
	f.store = New(db.Client, db.Tables["TasksTable"], runs.DefaultRetention)
	f.store.Now = func() time.Time { return f.now }
	return f
}

func (f *fixture) raw(t *testing.T, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := f.db.Client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), Key: dynamo.Key(pk, sk), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func attr(item map[string]types.AttributeValue, name string) string {
	switch v := item[name].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case nil:
		return ""
	}
	return "?"
}

func newRun(id string) runs.Run {
	return runs.Run{ID: id, TenantID: "ten-a", UserID: "u-1", Task: "Find pricing", Mode: runs.ModeCareful, Status: runs.StatusCreated, MaxSteps: 150}
}

func TestCreateGetAndKeys(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	created, err := f.store.Create(ctx, newRun("r1"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.store.Get(ctx, "ten-a", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Task != "Find pricing" || got.Mode != runs.ModeCareful || got.Status != runs.StatusCreated || got.MaxSteps != 150 ||
		!got.CreatedAt.Equal(f.now) || !got.UpdatedAt.Equal(created.UpdatedAt) || len(got.Reflections) != 0 {
		t.Errorf("Get() = %+v, want the created run", got)
	}
	item := f.raw(t, "TENANT#ten-a#RUN#r1", "RUN")
	wantGSI2SK := dynamo.Sortable(f.now) + "#ten-a#r1"
	if attr(item, "GSI2PK") != "RUNS#active" || attr(item, "GSI2SK") != wantGSI2SK || attr(item, "expiresAt") != fmt.Sprint(f.now.Add(time.Hour).Unix()) {
		t.Errorf("header GSI2 %q/%q expiresAt %s, want RUNS#active/%s and now+1h", attr(item, "GSI2PK"), attr(item, "GSI2SK"), attr(item, "expiresAt"), wantGSI2SK)
	}
	if _, err := f.store.Get(ctx, "ten-b", "r1"); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("another tenant's Get() error = %v, want ErrNotFound", err)
	}
	if _, err := f.store.Create(ctx, newRun("r1")); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("Create() of an existing id error = %v, want ErrConflict", err)
	}
}

func TestSaveAppendsOnceAndRenews(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	run, err := f.store.Create(ctx, newRun("r1"))
	if err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(10 * time.Minute)
	next := run
	next.Status, next.CurrentStep = runs.StatusWaitingUser, 1
	next.PendingQuestion, next.PendingTool = "Proceed?", &runs.Tool{Name: runs.ToolClick, ID: "agent-9"}
	next.CurrentSnapshot = &runs.Snapshot{URL: "https://shop.example/", Title: "Shop", Elements: []runs.Element{{ID: "agent-9", Tag: "button", Text: "Pay Now", BBox: &runs.BBox{X: 1, Width: 80}}}, Timestamp: 1737292800000}
	next.Reflections = []runs.Reflection{{StepNumber: 1, StepsAnalyzed: 1, Efficiency: runs.EfficiencyHigh, Issues: []string{}, Suggestions: []string{}, CreatedAt: f.now}}
	entry := runs.Entry{StepNumber: 1, Action: runs.ToolAskUser, Question: "Proceed?", Tool: next.PendingTool, Warning: "click on a payment-like element",
		URL: "https://shop.example/", Model: "m", Usage: runs.Usage{PromptTokens: 10, CompletionTokens: 2}, LLMAttempts: 1, LLMLatency: 1500 * time.Millisecond}
	if err := f.store.Save(ctx, run, next, &entry, nil); err != nil {
		t.Fatal(err)
	}
	// The same transition again (a retry or a concurrent request) changes nothing.
	if err := f.store.Save(ctx, run, next, &entry, nil); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("second Save() from the same state error = %v, want ErrConflict", err)
	}
	got, err := f.store.Get(ctx, "ten-a", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != runs.StatusWaitingUser || got.CurrentStep != 1 || got.PendingTool == nil || got.PendingTool.ID != "agent-9" ||
		got.CurrentSnapshot == nil || got.CurrentSnapshot.Elements[0].BBox.Width != 80 || len(got.Reflections) != 1 ||
		!got.UpdatedAt.Equal(f.now) || !got.CreatedAt.Equal(run.CreatedAt) {
		t.Errorf("Get() after Save = %+v, want the saved state", got)
	}
	entries, err := f.store.Entries(ctx, "ten-a", "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Question != "Proceed?" || entries[0].Tool.ID != "agent-9" || entries[0].LLMLatency != 1500*time.Millisecond || entries[0].Usage.PromptTokens != 10 {
		t.Errorf("Entries() = %+v, want the one saved entry", entries)
	}
	item := f.raw(t, "TENANT#ten-a#RUN#r1", "STEP#000001")
	if want := fmt.Sprint(f.now.Add(f.store.Retention.EntryLifetime(150)).Unix()); attr(item, "expiresAt") != want {
		t.Errorf("entry expiresAt = %s, want %s", attr(item, "expiresAt"), want)
	}
	if header := f.raw(t, "TENANT#ten-a#RUN#r1", "RUN"); attr(header, "expiresAt") != fmt.Sprint(f.now.Add(time.Hour).Unix()) {
		t.Errorf("header expiresAt = %s, want renewed to now+1h", attr(header, "expiresAt"))
	}

	// Finishing keeps the run 90 days and takes it off the active index.
	finished := got
	finished.Status, finished.Error = runs.StatusCancelled, "Cancelled by the user."
	if err := f.store.Save(ctx, got, finished, nil, nil); err != nil {
		t.Fatal(err)
	}
	header := f.raw(t, "TENANT#ten-a#RUN#r1", "RUN")
	exp := f.now.Add(90 * 24 * time.Hour)
	if attr(header, "GSI2PK") != "" || attr(header, "GSI2SK") != "" || attr(header, "expiresAt") != fmt.Sprint(exp.Unix()) {
		t.Errorf("finished header GSI2 %q/%q expiresAt %s, want no GSI2 and now+90d", attr(header, "GSI2PK"), attr(header, "GSI2SK"), attr(header, "expiresAt"))
	}
	if rpk, rsk := expiry.Keys("TENANT#ten-a#RUN#r1", exp); attr(header, "RetentionPK") != rpk || attr(header, "RetentionSK") != rsk {
		t.Errorf("finished header Retention keys %q/%q, want %s/%s", attr(header, "RetentionPK"), attr(header, "RetentionSK"), rpk, rsk)
	}
	if item := f.raw(t, "TENANT#ten-a#RUN#r1", "STEP#000001"); attr(item, "RetentionPK") != "" {
		t.Errorf("entry has Retention keys %q, want none (entries go with their header)", attr(item, "RetentionPK"))
	}
}

func TestEntriesLast(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	run, err := f.store.Create(ctx, newRun("r1"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 25; i++ {
		next := run
		next.Status, next.CurrentStep = runs.StatusRunning, i
		if err := f.store.Save(ctx, run, next, &runs.Entry{StepNumber: i, Action: runs.ToolObserve, Tool: &runs.Tool{Name: runs.ToolObserve}}, nil); err != nil {
			t.Fatal(err)
		}
		run = next
	}
	last, err := f.store.Entries(ctx, "ten-a", "r1", 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(last) != 20 || last[0].StepNumber != 6 || last[19].StepNumber != 25 {
		t.Errorf("Entries(20) = %d entries from %d to %d, want 20 from 6 to 25", len(last), last[0].StepNumber, last[len(last)-1].StepNumber)
	}
	all, err := f.store.Entries(ctx, "ten-a", "r1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 25 || all[0].StepNumber != 1 {
		t.Errorf("Entries(0) = %d entries from %d, want 25 from 1", len(all), all[0].StepNumber)
	}
	if other, err := f.store.Entries(ctx, "ten-b", "r1", 0); err != nil || len(other) != 0 {
		t.Errorf("another tenant's Entries() = %d, %v; want none", len(other), err)
	}
}

func TestExpiredRunIsAbsent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	run, err := f.store.Create(ctx, newRun("r1"))
	if err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(time.Hour)
	if _, err := f.store.Get(ctx, "ten-a", "r1"); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("Get() an hour idle error = %v, want ErrNotFound", err)
	}
	next := run
	next.Status, next.CurrentStep = runs.StatusRunning, 1
	if err := f.store.Save(ctx, run, next, nil, nil); !errors.Is(err, runs.ErrConflict) {
		t.Errorf("Save() of an expired run error = %v, want ErrConflict", err)
	}
}

func TestIdempotency(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	run, err := f.store.Create(ctx, newRun("r1"))
	if err != nil {
		t.Fatal(err)
	}
	next := run
	next.Status, next.CurrentStep = runs.StatusRunning, 1
	rec := &runs.IdempotencyRecord{Scope: runs.ScopeStep, Key: "k-1", RequestHash: "h", Body: []byte(`{"action":"execute_tool"}`)}
	if err := f.store.Save(ctx, run, next, &runs.Entry{StepNumber: 1, Action: runs.ToolObserve}, rec); err != nil {
		t.Fatal(err)
	}
	got, err := f.store.GetIdempotency(ctx, "ten-a", "r1", runs.ScopeStep, "k-1")
	if err != nil || got.RequestHash != "h" || string(got.Body) != `{"action":"execute_tool"}` {
		t.Errorf("GetIdempotency() = %+v, %v; want the record", got, err)
	}
	if _, err := f.store.GetIdempotency(ctx, "ten-a", "r1", runs.ScopeAnswer, "k-1"); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("GetIdempotency() in another scope error = %v, want ErrNotFound", err)
	}
	// A concurrent request with the same key lost the race: it is told so, not that the run changed.
	if err := f.store.Save(ctx, run, next, &runs.Entry{StepNumber: 1, Action: runs.ToolObserve}, rec); !errors.Is(err, runs.ErrIdempotencyRace) {
		t.Errorf("Save() with a recorded key error = %v, want ErrIdempotencyRace", err)
	}
}

// A corrupt timestamp is a store error, not a zero time that passes for a real one.
func TestCorruptTimestampIsAnError(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.store.Create(ctx, newRun("r1")); err != nil {
		t.Fatal(err)
	}
	_, err := f.db.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.db.Tables["TasksTable"]), Key: dynamo.Key(RunPK("ten-a", "r1"), HeaderSK),
		UpdateExpression:          aws.String("SET updatedAt = :bad"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":bad": &types.AttributeValueMemberS{Value: "2026-13-01"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Get(ctx, "ten-a", "r1"); err == nil || errors.Is(err, runs.ErrNotFound) || !strings.Contains(err.Error(), "updatedAt") {
		t.Errorf("Get with a corrupt updatedAt: %v, want an error naming updatedAt", err)
	}
}
