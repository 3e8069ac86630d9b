package chatdb

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
)

// page is a DOM over the snapshot threshold.
var page = "<body><h1>Checkout</h1>" + strings.Repeat(`<button id="7">Pay now</button> `, 60) + "</body>"

// stepWithDOM appends an assistant message written on dom to the session as stored now.
func stepWithDOM(t *testing.T, s *Store, tenantID, sessionID, dom string) (chat.Message, chat.DOMCapture) {
	t.Helper()
	ctx := t.Context()
	sess, err := s.GetSession(ctx, tenantID, sessionID)
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	c, err := s.CaptureDOM(ctx, tenantID, sessionID, dom)
	if err != nil {
		t.Fatalf("CaptureDOM: %v", err)
	}
	m := chat.Message{Role: chat.RoleAssistant, Content: "next", ActionString: "click(7)"}
	m.AttachDOM(c)
	b, err := s.AppendWrites(sess, Step{Messages: []chat.Message{m}, Snapshot: c.Snapshot}, s.Now())
	if err != nil {
		t.Fatalf("AppendWrites: %v", err)
	}
	if err := s.commit(ctx, b); err != nil {
		t.Fatalf("commit: %v", err)
	}
	return b.Messages[0], c
}

func TestSnapshots(t *testing.T) {
	s, clk, _ := newStore(t)
	ctx := t.Context()
	sess := create(t, s, "ten", "ana", "pay")

	first, c1 := stepWithDOM(t, s, "ten", sess.ID, page)
	if c1.Snapshot == nil || first.SnapshotID == "" {
		t.Fatalf("first capture of a large page: got snapshot %v, message snapshotId %q, want both", c1.Snapshot != nil, first.SnapshotID)
	}
	clk.Advance(time.Minute)
	second, c2 := stepWithDOM(t, s, "ten", sess.ID, page)
	if c2.Snapshot != nil {
		t.Error("second capture of the same page: got a snapshot to write, want a reference only")
	}
	if second.SnapshotID != first.SnapshotID {
		t.Errorf("snapshotId of the repeat: got %q, want %q", second.SnapshotID, first.SnapshotID)
	}
	small, c3 := stepWithDOM(t, s, "ten", sess.ID, "<p>Done</p>")
	if c3.Snapshot != nil || small.SnapshotID != "" || small.DOMSummary != "Done" || small.DOMLength != 11 {
		t.Errorf("small page: got snapshot %v id %q summary %q length %d, want none, none, Done, 11",
			c3.Snapshot != nil, small.SnapshotID, small.DOMSummary, small.DOMLength)
	}

	snaps := rawItems(t, s, "ten", sess.ID, snapPrefix)
	if len(snaps) != 1 {
		t.Fatalf("snapshot items: got %d, want 1", len(snaps))
	}
	data, ok := snaps[0]["gzip"].(*types.AttributeValueMemberB)
	if !ok {
		t.Fatalf("snapshot data: got %T, want a Binary attribute", snaps[0]["gzip"])
	}
	zr, err := gzip.NewReader(bytes.NewReader(data.Value))
	if err != nil {
		t.Fatalf("stored bytes are not gzip: %v", err)
	}
	if raw, err := io.ReadAll(zr); err != nil || string(raw) != page {
		t.Errorf("stored bytes decompress to (%d bytes, %v), want the page", len(raw), err)
	}
	// The page is nowhere in the table uncompressed.
	for _, item := range rawItems(t, s, "ten", sess.ID, "") {
		for name, v := range item {
			if sv, ok := v.(*types.AttributeValueMemberS); ok && strings.Contains(sv.Value, "Pay now</button>") {
				t.Errorf("attribute %s of %v holds the page uncompressed", name, item["SK"])
			}
		}
	}
	if dom, err := s.GetSnapshot(ctx, "ten", sess.ID, first.SnapshotID); err != nil || dom != page {
		t.Errorf("GetSnapshot: got (%d chars, %v), want the page", len(dom), err)
	}
	msgs, err := s.ListMessages(ctx, "ten", sess.ID, 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{msgs.Messages[1].SnapshotID, msgs.Messages[2].SnapshotID}; got[0] != first.SnapshotID || got[1] != first.SnapshotID {
		t.Errorf("stored snapshotIds of steps 1 and 2: got %q, want both %q", got, first.SnapshotID)
	}
	for _, bad := range []struct{ tenant, session, id string }{
		{"other", sess.ID, first.SnapshotID}, {"ten", sess.ID, strings.Repeat("0", 64)}, {"ten", sess.ID, "../x"},
	} {
		if _, err := s.GetSnapshot(ctx, bad.tenant, bad.session, bad.id); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("GetSnapshot(%s, %s): got %v, want ErrNotFound", bad.tenant, bad.id, err)
		}
	}
}

func TestSnapshotTooLarge(t *testing.T) {
	s, _, _ := newStore(t)
	s.MaxSnapshotBytes = 500
	sess := create(t, s, "ten", "ana", "q")
	noise := make([]byte, 3000)
	rand.Read(noise)
	dom := "<p>Random</p>" + strconv.Quote(string(noise))
	m, c := stepWithDOM(t, s, "ten", sess.ID, dom)
	if c.Snapshot != nil || m.SnapshotID != "" || m.SnapshotOmitted != chat.OmittedTooLarge || m.DOMSummary == "" {
		t.Errorf("page over the limit: got snapshot %v id %q omitted %q summary %q, want none, none, %q, a summary",
			c.Snapshot != nil, m.SnapshotID, m.SnapshotOmitted, m.DOMSummary, chat.OmittedTooLarge)
	}
	if n := len(rawItems(t, s, "ten", sess.ID, snapPrefix)); n != 0 {
		t.Errorf("snapshot items: got %d, want 0", n)
	}
	stored, err := s.ListMessages(t.Context(), "ten", sess.ID, 0, time.Time{})
	if err != nil || stored.Messages[1].SnapshotOmitted != chat.OmittedTooLarge {
		t.Errorf("stored message: got (%+v, %v), want snapshotOmitted %q", stored.Messages, err, chat.OmittedTooLarge)
	}
}

func TestListMessagesSinceAndLimit(t *testing.T) {
	s, clk, _ := newStore(t)
	sess := create(t, s, "ten", "ana", "m1")
	for _, c := range []string{"m2", "m3", "m4"} {
		clk.Advance(time.Minute)
		sess = appendMsgs(t, s, sess, c)
	}
	tests := []struct {
		name  string
		limit int
		since time.Time
		want  []string
	}{
		{"all", 0, time.Time{}, []string{"m1", "m2", "m3", "m4"}},
		{"limit", 2, time.Time{}, []string{"m1", "m2"}},
		{"since between", 0, t0.Add(90 * time.Second), []string{"m3", "m4"}},
		{"since exactly a message's time", 0, t0.Add(time.Minute), []string{"m3", "m4"}},
		{"since and limit", 1, t0.Add(30 * time.Second), []string{"m2"}},
		{"since after all", 5, t0.Add(time.Hour), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.ListMessages(t.Context(), "ten", sess.ID, tt.limit, tt.since)
			if err != nil {
				t.Fatalf("ListMessages: %v", err)
			}
			if got := contents(page.Messages); !slices.Equal(got, tt.want) || page.Total != 4 {
				t.Errorf("got %q (total %d), want %q (total 4)", got, page.Total, tt.want)
			}
		})
	}
	for _, tenant := range []string{"other", ""} {
		if _, err := s.ListMessages(t.Context(), tenant, sess.ID, 0, time.Time{}); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("ListMessages in tenant %q: got %v, want ErrNotFound", tenant, err)
		}
	}
}

// expiry reads the stored expiresAt of an item of the session's partition.
func expiry(t *testing.T, s *Store, sessionID, sk string) time.Time {
	t.Helper()
	var table = s.messages
	if sk == SessionSK {
		table = s.sessions
	}
	item, err := s.getItem(t.Context(), table, dynamo.Key(SessionPK("ten", sessionID), sk))
	if err != nil || item == nil {
		t.Fatalf("get %s: (%v, %v)", sk, item, err)
	}
	n, ok := item["expiresAt"].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("expiresAt of %s: got %T, want a Number", sk, item["expiresAt"])
	}
	var sec int64
	if err := attributevalue.Unmarshal(n, &sec); err != nil {
		t.Fatal(err)
	}
	return time.Unix(sec, 0).UTC()
}

// wantExpiry is the expected expiresAt of items of a session's partition at one stage.
type wantExpiry struct {
	sk   string
	want time.Time
}

func checkExpiry(t *testing.T, s *Store, sessionID, stage string, wants []wantExpiry) {
	t.Helper()
	for _, w := range wants {
		if got := expiry(t, s, sessionID, w.sk); !got.Equal(w.want) {
			t.Errorf("%s, %s: got expiresAt %v, want %v", stage, w.sk, got, w.want)
		}
	}
}

func TestRetentionOnWrite(t *testing.T) {
	s, clk, _ := newStore(t)
	s.Retention = chat.Retention{Active: 50 * time.Hour, Finished: 40 * time.Hour, Interrupted: 20 * time.Hour, Snapshot: 30 * time.Hour}
	ctx := t.Context()
	after := func(at time.Time, d time.Duration) time.Time { return at.Add(d).Truncate(time.Second) }

	// Active: provisional expiry from the last update; the snapshot's own, shorter period.
	sess := create(t, s, "ten", "ana", "q")
	clk.Advance(time.Hour)
	at1 := s.Now()
	m, _ := stepWithDOM(t, s, "ten", sess.ID, page)
	snap := snapshotSK(m.SnapshotID)
	checkExpiry(t, s, sess.ID, "active", []wantExpiry{
		{SessionSK, after(at1, 50*time.Hour)},
		{messageSK(1), after(t0, 50*time.Hour)},
		{messageSK(2), after(at1, 50*time.Hour)},
		{snap, after(at1, 30*time.Hour)},
	})

	// Completed: Finished from the end, for the session and every message written before.
	clk.Advance(time.Hour)
	at2 := s.Now()
	read, err := s.GetSession(ctx, "ten", sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	done := Step{Messages: []chat.Message{{Role: chat.RoleAssistant, ActionString: "finish()"}}, Status: chat.StatusCompleted}
	if _, err := s.Append(ctx, read, done); err != nil {
		t.Fatal(err)
	}
	checkExpiry(t, s, sess.ID, "completed", []wantExpiry{
		{SessionSK, after(at2, 40*time.Hour)},
		{messageSK(1), after(at2, 40*time.Hour)},
		{messageSK(2), after(at2, 40*time.Hour)},
		{messageSK(3), after(at2, 40*time.Hour)},
		{snap, after(at1, 30*time.Hour)},
	})

	// Interrupted, here shorter than the snapshot's period: everything is cut to the session.
	clk.Advance(time.Hour)
	at3 := s.Now()
	got, err := s.SetStatus(ctx, "ten", sess.ID, chat.StatusInterrupted)
	if err != nil {
		t.Fatal(err)
	}
	if !got.ExpiresAt.Equal(after(at3, 20*time.Hour)) {
		t.Errorf("SetStatus(interrupted) expiry: got %v, want %v", got.ExpiresAt, after(at3, 20*time.Hour))
	}
	checkExpiry(t, s, sess.ID, "interrupted", []wantExpiry{
		{SessionSK, after(at3, 20*time.Hour)},
		{messageSK(1), after(at3, 20*time.Hour)},
		{messageSK(3), after(at3, 20*time.Hour)},
		{snap, after(at3, 20*time.Hour)},
	})
}

func TestExpiredIsAbsent(t *testing.T) {
	s, clk, _ := newStore(t)
	ctx := t.Context()
	r := s.Retention
	sess := create(t, s, "ten", "ana", "q")
	m, _ := stepWithDOM(t, s, "ten", sess.ID, page)

	// Past the snapshot's retention, the session is still live but the snapshot is gone.
	clk.Advance(r.Snapshot + time.Second)
	if _, err := s.GetSnapshot(ctx, "ten", sess.ID, m.SnapshotID); !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("GetSnapshot past its retention: got %v, want ErrNotFound", err)
	}
	if _, err := s.GetSession(ctx, "ten", sess.ID); err != nil {
		t.Fatalf("GetSession within retention: %v", err)
	}
	// The same page again is stored again, renewing it.
	_, c := stepWithDOM(t, s, "ten", sess.ID, page)
	if c.Snapshot == nil {
		t.Error("capture of a page whose snapshot expired: got a reference only, want a snapshot to write")
	}
	if _, err := s.GetSnapshot(ctx, "ten", sess.ID, m.SnapshotID); err != nil {
		t.Errorf("GetSnapshot after the rewrite: %v", err)
	}

	clk.Advance(r.Active + time.Second)
	reads := []struct {
		name string
		err  func() error
	}{
		{"GetSession", func() error { _, err := s.GetSession(ctx, "ten", sess.ID); return err }},
		{"LatestSession", func() error { _, err := s.LatestSession(ctx, "ten", "ana", chat.StatusActive); return err }},
		{"ListMessages", func() error { _, err := s.ListMessages(ctx, "ten", sess.ID, 0, time.Time{}); return err }},
		{"GetSnapshot", func() error { _, err := s.GetSnapshot(ctx, "ten", sess.ID, m.SnapshotID); return err }},
		{"Archive", func() error { _, err := s.Archive(ctx, "ten", "ana", sess.ID); return err }},
		{"SetStatus", func() error { _, err := s.SetStatus(ctx, "ten", sess.ID, chat.StatusFailed); return err }},
	}
	for _, rd := range reads {
		if err := rd.err(); !errors.Is(err, chat.ErrNotFound) {
			t.Errorf("%s of an expired session: got %v, want ErrNotFound", rd.name, err)
		}
	}
	page, err := s.ListSessions(ctx, "ten", "ana", chat.ListFilter{Archived: chat.IncludeArchived}, 10, 0)
	if err != nil || len(page.Sessions) != 0 || page.Total != 0 || page.HasMore {
		t.Errorf("ListSessions with only an expired session: got (%d sessions, total %d, hasMore %v, %v), want none", len(page.Sessions), page.Total, page.HasMore, err)
	}
	// Expired messages of a live session are absent too.
	live := create(t, s, "ten", "ana", "fresh")
	if _, err := s.client.UpdateItem(ctx, expireNow(s, live.ID, messageSK(1))); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.ListMessages(ctx, "ten", live.ID, 0, time.Time{})
	if err != nil || len(msgs.Messages) != 0 {
		t.Errorf("ListMessages with an expired message: got (%d, %v), want (0, nil)", len(msgs.Messages), err)
	}
}

// expireNow sets an item's expiresAt to the store's present, as TTL lag would leave it.
func expireNow(s *Store, sessionID, sk string) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName:                 &s.messages,
		Key:                       dynamo.Key(SessionPK("ten", sessionID), sk),
		UpdateExpression:          aws.String("SET expiresAt = :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": epoch(s.Now())},
	}
}
