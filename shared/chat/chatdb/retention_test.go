package chatdb

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
	expiryindex "github.com/screenagent/backend/shared/retention/expiry"
)

// retentionKeysOf reads the Retention index keys of an item.
func retentionKeysOf(t *testing.T, s *Store, table string, k map[string]types.AttributeValue) (string, string) {
	t.Helper()
	out, err := s.client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: &table, Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Fatalf("get item: %v (found %v)", err, out != nil && out.Item != nil)
	}
	return dynamo.StringOf(out.Item, "RetentionPK"), dynamo.StringOf(out.Item, "RetentionSK")
}

func TestRetentionIndexKeys(t *testing.T) {
	s, clk, _ := newStore(t)
	ctx := t.Context()
	sess := create(t, s, "ten", "ana", "q")
	pk := SessionPK("ten", sess.ID)
	sessionKey := dynamo.Key(pk, SessionSK)

	check := func(stage, wantPK, wantSK string) {
		t.Helper()
		if gotPK, gotSK := retentionKeysOf(t, s, s.sessions, sessionKey); gotPK != wantPK || gotSK != wantSK {
			t.Errorf("%s: got Retention keys %q / %q, want %q / %q", stage, gotPK, gotSK, wantPK, wantSK)
		}
	}
	check("created", ActivePartition, expiryindex.ActiveSortKey(sess.UpdatedAt, "ten", sess.ID))
	clk.Advance(time.Minute)
	sess = appendMsgs(t, s, sess, "a")
	check("appended", ActivePartition, expiryindex.ActiveSortKey(sess.UpdatedAt, "ten", sess.ID))

	m, _ := stepWithDOM(t, s, "ten", sess.ID, page)
	snapKey := dynamo.Key(pk, snapshotSK(m.SnapshotID))
	snapPK, snapSK := retentionKeysOf(t, s, s.messages, snapKey)
	if wantPK, wantSK := expiryindex.Keys(pk, clk.Now().Add(s.Retention.Snapshot)); snapPK != wantPK || snapSK != wantSK {
		t.Errorf("snapshot: got Retention keys %q / %q, want %q / %q (its expiry)", snapPK, snapSK, wantPK, wantSK)
	}
	if gotPK, _ := retentionKeysOf(t, s, s.messages, dynamo.Key(pk, messageSK(1))); gotPK != "" {
		t.Errorf("message: got RetentionPK %q, want none (it goes with its session)", gotPK)
	}

	sess, err := s.SetStatus(ctx, "ten", sess.ID, chat.StatusCompleted)
	if err != nil {
		t.Fatal(err)
	}
	wantPK, wantSK := expiryindex.Keys(pk, sess.ExpiresAt)
	check("completed", wantPK, wantSK)

	// Interrupted, the session expires before its snapshot would: the snapshot's entry moves too.
	s.Retention.Interrupted = time.Hour
	sess, err = s.SetStatus(ctx, "ten", sess.ID, chat.StatusInterrupted)
	if err != nil {
		t.Fatal(err)
	}
	wantPK, wantSK = expiryindex.Keys(pk, sess.ExpiresAt)
	check("interrupted", wantPK, wantSK)
	if _, gotSK := retentionKeysOf(t, s, s.messages, snapKey); gotSK != expiryindex.SortKey(sess.ExpiresAt) {
		t.Errorf("snapshot of the interrupted session: got RetentionSK %q, want %q (the session's expiry)", gotSK, expiryindex.SortKey(sess.ExpiresAt))
	}
}

// An expired session takes no more writes, so that the cleanup can delete its messages safely.
func TestExpiredSessionIsFrozen(t *testing.T) {
	s, clk, _ := newStore(t)
	sess := create(t, s, "ten", "ana", "q")
	clk.Advance(s.Retention.Active + time.Second)
	if _, err := s.Append(t.Context(), sess, Step{Messages: []chat.Message{{Role: chat.RoleAssistant, Content: "late"}}}); !errors.Is(err, chat.ErrConcurrentAppend) {
		t.Errorf("append to a session read before it expired: got %v, want ErrConcurrentAppend", err)
	}
	b, err := s.StatusWrites(sess, chat.StatusFailed, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.commit(t.Context(), b); !errors.Is(err, chat.ErrConcurrentAppend) {
		t.Errorf("status of a session read before it expired: got %v, want ErrConcurrentAppend", err)
	}
}
