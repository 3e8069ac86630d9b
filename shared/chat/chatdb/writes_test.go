package chatdb

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
)

func TestCreateAndAppendGapFree(t *testing.T) {
	s, clk, _ := newStore(t)
	ctx := t.Context()
	sess := create(t, s, "ten", "ana", "Buy shoes")
	steps := []struct {
		contents []string
		wantSeq  []int
	}{
		{[]string{"report 1", "thought 1"}, []int{2, 3}},
		{[]string{"thought 2"}, []int{4}},
		{[]string{"report 3", "thought 3"}, []int{5, 6}},
	}
	for i, step := range steps {
		clk.Advance(time.Minute)
		read, err := s.GetSession(ctx, "ten", sess.ID)
		if err != nil {
			t.Fatalf("step %d: GetSession: %v", i+1, err)
		}
		var msgs []chat.Message
		for _, c := range step.contents {
			msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: c})
		}
		b, err := s.AppendWrites(read, Step{Messages: msgs}, s.Now())
		if err != nil {
			t.Fatalf("step %d: AppendWrites: %v", i+1, err)
		}
		if got := sequence(b.Messages); !slices.Equal(got, step.wantSeq) {
			t.Errorf("step %d: sequence numbers got %v, want %v", i+1, got, step.wantSeq)
		}
		if err := s.commit(ctx, b); err != nil {
			t.Fatalf("step %d: commit: %v", i+1, err)
		}
	}
	page, err := s.ListMessages(ctx, "ten", sess.ID, 0, time.Time{})
	if err != nil {
		t.Fatalf("ListMessages: %v", err)
	}
	if got, want := sequence(page.Messages), []int{1, 2, 3, 4, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("stored sequence: got %v, want %v", got, want)
	}
	if got, want := contents(page.Messages), []string{"Buy shoes", "report 1", "thought 1", "thought 2", "report 3", "thought 3"}; !slices.Equal(got, want) {
		t.Errorf("stored contents: got %q, want %q", got, want)
	}
	got, err := s.GetSession(ctx, "ten", sess.ID)
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	if got.MessageCount != 6 || page.Total != 6 {
		t.Errorf("message count: got %d (page total %d), want 6", got.MessageCount, page.Total)
	}
	if want := t0.Add(3 * time.Minute); !got.UpdatedAt.Equal(want) || !got.CreatedAt.Equal(t0) {
		t.Errorf("times: got created %v updated %v, want %v and %v", got.CreatedAt, got.UpdatedAt, t0, want)
	}
	for _, m := range page.Messages {
		if m.SessionID != sess.ID || m.TaskID != "task-1" || len(m.ID) != 36 {
			t.Errorf("message %d: got session %q task %q id %q, want %q, task-1, a UUID", m.SequenceNumber, m.SessionID, m.TaskID, m.ID, sess.ID)
		}
	}
}

func TestMessageFieldsRoundTrip(t *testing.T) {
	s, _, _ := newStore(t)
	sess := create(t, s, "ten", "ana", "q")
	elem := 12
	want := chat.Message{
		ID: "0b6c5a0e-5a8e-4b8e-9f55-1f1f0c6a2a11", Role: chat.RoleAssistant, Content: "I'll click Login",
		ActionString: "click(12)", Status: chat.MessageFailure,
		Error:     &chat.ActionError{Message: "not clickable", Code: "ELEMENT_HIDDEN", Action: "click(12)", ElementID: &elem},
		Timestamp: t0.Add(time.Second), DOMSummary: "Login page", DOMLength: 800,
		Usage: &chat.Usage{PromptTokens: 1200, CompletionTokens: 40}, Latency: 1500 * time.Millisecond, Model: "gpt-4o-mini",
	}
	if _, err := s.Append(t.Context(), sess, Step{Messages: []chat.Message{want}, TaskID: "task-2"}); err != nil {
		t.Fatalf("Append: %v", err)
	}
	page, err := s.ListMessages(t.Context(), "ten", sess.ID, 0, time.Time{})
	if err != nil || len(page.Messages) != 2 {
		t.Fatalf("ListMessages: got (%d messages, %v), want 2", len(page.Messages), err)
	}
	got := page.Messages[1]
	want.SessionID, want.TaskID, want.SequenceNumber, want.ExpiresAt = sess.ID, "task-2", 2, got.ExpiresAt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\ngot  %+v (error %+v, usage %+v)\nwant %+v (error %+v, usage %+v)", got, got.Error, got.Usage, want, want.Error, want.Usage)
	}
	if page.Session.TaskID != "task-2" {
		t.Errorf("session task after a step of another task: got %q, want task-2", page.Session.TaskID)
	}
}

func TestConcurrentAppends(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := t.Context()
	sess := create(t, s, "ten", "ana", "q")
	const racers = 2
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			_, errs[i] = s.Append(ctx, sess, Step{Messages: []chat.Message{
				{Role: chat.RoleSystem, Content: fmt.Sprintf("racer %d a", i)},
				{Role: chat.RoleAssistant, Content: fmt.Sprintf("racer %d b", i)},
			}})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner < 0:
			winner = i
		case err == nil:
			t.Fatalf("both appends succeeded, want exactly one")
		case !errors.Is(err, chat.ErrConcurrentAppend):
			t.Fatalf("racer %d: got %v, want ErrConcurrentAppend", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("no append succeeded: %v", errs)
	}
	page, err := s.ListMessages(ctx, "ten", sess.ID, 0, time.Time{})
	if err != nil {
		t.Fatalf("ListMessages: %v", err)
	}
	want := []string{"q", fmt.Sprintf("racer %d a", winner), fmt.Sprintf("racer %d b", winner)}
	if got := contents(page.Messages); !slices.Equal(got, want) || page.Session.MessageCount != 3 {
		t.Errorf("after the race: got %q (count %d), want %q (count 3)", got, page.Session.MessageCount, want)
	}

	// A session read before the winner's step is stale too.
	if _, err := s.Append(ctx, sess, Step{Messages: []chat.Message{{Role: chat.RoleUser, Content: "late"}}}); !errors.Is(err, chat.ErrConcurrentAppend) {
		t.Errorf("append to a stale read: got %v, want ErrConcurrentAppend", err)
	}
}

// TestConflictAmongCallerItems runs a step's writes inside a transaction with the caller's own
// item, as the interact engine does, and checks which failures Conflict attributes to the chat.
func TestConflictAmongCallerItems(t *testing.T) {
	s, _, db := newStore(t)
	ctx := t.Context()
	tasks := db.Tables["TasksTable"]
	sess := create(t, s, "ten", "ana", "q")
	taskItem := map[string]types.AttributeValue{"PK": dynamo.Str("TENANT#ten#TASK#1"), "SK": dynamo.Str("STEP#000001")}
	if _, err := db.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &tasks, Item: taskItem}); err != nil {
		t.Fatalf("seed task item: %v", err)
	}
	stale := sess
	stale.MessageCount = 7
	tests := []struct {
		name      string
		sess      chat.Session
		taskCond  string
		wantChat  bool
		wantTotal int
	}{
		{"caller's item fails", sess, "attribute_not_exists(PK)", false, 1},
		{"chat's item fails", stale, "attribute_exists(PK)", true, 1},
		{"both pass", sess, "attribute_exists(PK)", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := s.AppendWrites(tt.sess, Step{Messages: []chat.Message{{Role: chat.RoleAssistant, Content: tt.name}}}, s.Now())
			if err != nil {
				t.Fatalf("AppendWrites: %v", err)
			}
			items := append([]types.TransactWriteItem{{ConditionCheck: &types.ConditionCheck{
				TableName: &tasks, Key: map[string]types.AttributeValue{"PK": taskItem["PK"], "SK": taskItem["SK"]},
				ConditionExpression: aws.String(tt.taskCond),
			}}}, b.Items...)
			_, err = db.Client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			conflict := s.Conflict(err, items)
			if got := errors.Is(conflict, chat.ErrConcurrentAppend); got != tt.wantChat {
				t.Errorf("Conflict(%v): got chat conflict %v, want %v", err, got, tt.wantChat)
			}
			got, gerr := s.GetSession(ctx, "ten", sess.ID)
			if gerr != nil {
				t.Fatalf("GetSession: %v", gerr)
			}
			if n := len(rawItems(t, s, "ten", sess.ID, msgPrefix)); got.MessageCount != tt.wantTotal || n != tt.wantTotal {
				t.Errorf("after the transaction: got count %d and %d message items, want %d of both", got.MessageCount, n, tt.wantTotal)
			}
			if err == nil {
				sess = got
			}
		})
	}
	if s.Conflict(errors.New("network"), nil) != nil {
		t.Error("Conflict of a non-transaction error: got a conflict, want nil")
	}
}

func TestWriteValidation(t *testing.T) {
	s, _, _ := newStore(t)
	sess, err := chat.NewSession("ten", "ana", "task", "https://a.example/", "q", t0)
	if err != nil {
		t.Fatal(err)
	}
	snapshot := &chat.Snapshot{ID: fmt.Sprintf("%064x", 1), Gzip: []byte{0x1f, 0x8b}}
	tests := []struct {
		name string
		run  func() error
	}{
		{"append without messages", func() error { _, err := s.AppendWrites(sess, Step{}, t0); return err }},
		{"bad role", func() error {
			_, err := s.CreateWrites(sess, Step{Messages: []chat.Message{{Role: "bot"}}}, t0)
			return err
		}},
		{"bad status", func() error {
			_, err := s.AppendWrites(sess, Step{Messages: []chat.Message{{Role: chat.RoleUser}}, Status: "archived"}, t0)
			return err
		}},
		{"snapshot nobody references", func() error {
			_, err := s.CreateWrites(sess, Step{Messages: []chat.Message{{Role: chat.RoleUser}}, Snapshot: snapshot}, t0)
			return err
		}},
		{"create with a count", func() error {
			c := sess
			c.MessageCount = 2
			_, err := s.CreateWrites(c, Step{}, t0)
			return err
		}},
		{"no tenant", func() error {
			c := sess
			c.TenantID = ""
			_, err := s.AppendWrites(c, Step{Messages: []chat.Message{{Role: chat.RoleUser}}}, t0)
			return err
		}},
		{"status writes to no status", func() error { _, err := s.StatusWrites(sess, "", t0); return err }},
	}
	for _, tt := range tests {
		if err := tt.run(); err == nil {
			t.Errorf("%s: got nil error, want one", tt.name)
		}
	}
	if _, err := s.Create(t.Context(), sess, Step{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if _, err := s.Create(t.Context(), sess, Step{}); !errors.Is(err, chat.ErrConcurrentAppend) {
		t.Errorf("Create of an existing session: got %v, want ErrConcurrentAppend", err)
	}
}
