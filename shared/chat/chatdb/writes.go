package chatdb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
	expiryindex "github.com/screenagent/backend/shared/retention/expiry"
)

// Step is what one step of a task writes to its session.
type Step struct {
	// Messages are appended in order; the store assigns their sequence numbers.
	Messages []chat.Message
	// Snapshot is the page to store (DOMCapture.Snapshot): nil when there is none or it is stored
	// already. One of Messages must reference it.
	Snapshot *chat.Snapshot
	// Status is the session's status after the step, following its task; empty keeps it.
	Status chat.Status
	// TaskID is the task the session follows after the step; empty keeps it.
	TaskID string
}

// Batch is the writes of one change to a session, for a single TransactWriteItems alone or
// together with the caller's own items, and the state they leave once committed.
type Batch struct {
	Items    []types.TransactWriteItem
	Session  chat.Session
	Messages []chat.Message
	// statusChanged: messages written before carry the expiry of the old status (AfterCommit).
	statusChanged bool
}

// CreateWrites returns the writes that create sess (from chat.NewSession) with the step's
// messages numbered from 1. The session's Put requires that it does not exist yet.
func (s *Store) CreateWrites(sess chat.Session, step Step, now time.Time) (Batch, error) {
	if err := checkSession(sess); err != nil {
		return Batch{}, fmt.Errorf("create session: %w", err)
	}
	if sess.MessageCount != 0 || sess.Archived {
		return Batch{}, fmt.Errorf("create session %s: a new session has no messages and is not archived", sess.ID)
	}
	now = now.UTC().Round(0)
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now
	}
	b, err := s.advance(sess, step, now)
	if err != nil {
		return Batch{}, fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	b.statusChanged = false
	item, err := attributevalue.MarshalMap(newSessionItem(b.Session))
	if err != nil {
		return Batch{}, fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	put := types.TransactWriteItem{Put: &types.Put{
		TableName: &s.sessions, Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)"),
	}}
	b.Items = slices.Insert(b.Items, 0, put)
	return b, nil
}

// AppendWrites returns the writes that append the step's messages to sess, as it was read: its
// MessageCount n is the count expected in the table, and the messages get sequence numbers
// n+1, n+2, …. The session's update is conditioned on its count, status and archive flag being
// those read, so of two steps racing on one session exactly one commits (the other's transaction
// is canceled; Conflict recognizes it). The step may also change the session's status and task.
func (s *Store) AppendWrites(sess chat.Session, step Step, now time.Time) (Batch, error) {
	if err := checkSession(sess); err != nil {
		return Batch{}, fmt.Errorf("append to session: %w", err)
	}
	if len(step.Messages) == 0 {
		return Batch{}, fmt.Errorf("append to session %s: no messages", sess.ID)
	}
	now = now.UTC().Round(0)
	b, err := s.advance(sess, step, now)
	if err != nil {
		return Batch{}, fmt.Errorf("append to session %s: %w", sess.ID, err)
	}
	next := b.Session
	retentionPK, retentionSK := retentionKeys(next)
	update := types.TransactWriteItem{Update: &types.Update{
		TableName: &s.sessions,
		Key:       dynamo.Key(SessionPK(sess.TenantID, sess.ID), SessionSK),
		UpdateExpression: aws.String("SET messageCount = :count, updatedAt = :updated, expiresAt = :expires, " +
			"#status = :status, taskId = :task, GSI1SK = :recency, GSI2SK = :recency, GSI2PK = :byStatus, " +
			"RetentionPK = :retentionPK, RetentionSK = :retentionSK"),
		ConditionExpression:      aws.String(unchanged),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: withUnchanged(sess, now, map[string]types.AttributeValue{
			":count":       dynamo.Num(int64(next.MessageCount)),
			":updated":     dynamo.Str(dynamo.Sortable(next.UpdatedAt)),
			":expires":     epoch(next.ExpiresAt),
			":status":      dynamo.Str(string(next.Status)),
			":task":        dynamo.Str(next.TaskID),
			":recency":     dynamo.Str(recency(next.UpdatedAt, next.ID)),
			":byStatus":    dynamo.Str(statusPartition(next.TenantID, next.UserID, next.Archived, next.Status)),
			":retentionPK": dynamo.Str(retentionPK),
			":retentionSK": dynamo.Str(retentionSK),
		}),
	}}
	b.Items = slices.Insert(b.Items, 0, update)
	return b, nil
}

// StatusWrites returns the write that sets sess's status (following its task) and the expiry
// that status brings, under the same condition as AppendWrites, for a transaction that changes
// the status without appending (a step that appends passes Step.Status instead). It leaves
// UpdatedAt alone: an interruption by the cleanup is no activity. No items when the status is
// already that.
func (s *Store) StatusWrites(sess chat.Session, status chat.Status, now time.Time) (Batch, error) {
	if err := checkSession(sess); err != nil {
		return Batch{}, fmt.Errorf("set session status: %w", err)
	}
	if !status.Valid() {
		return Batch{}, fmt.Errorf("set session %s status: %q is not a session status", sess.ID, status)
	}
	if status == sess.Status {
		return Batch{Session: sess}, nil
	}
	next := sess
	next.Status = status
	next.ExpiresAt = s.Retention.SessionExpiry(status, now)
	retentionPK, retentionSK := retentionKeys(next)
	update := types.TransactWriteItem{Update: &types.Update{
		TableName: &s.sessions,
		Key:       dynamo.Key(SessionPK(sess.TenantID, sess.ID), SessionSK),
		UpdateExpression: aws.String("SET #status = :status, expiresAt = :expires, GSI2PK = :byStatus, " +
			"RetentionPK = :retentionPK, RetentionSK = :retentionSK"),
		ConditionExpression:      aws.String(unchanged),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: withUnchanged(sess, now, map[string]types.AttributeValue{
			":status":      dynamo.Str(string(status)),
			":expires":     epoch(next.ExpiresAt),
			":byStatus":    dynamo.Str(statusPartition(next.TenantID, next.UserID, next.Archived, status)),
			":retentionPK": dynamo.Str(retentionPK),
			":retentionSK": dynamo.Str(retentionSK),
		}),
	}}
	return Batch{Items: []types.TransactWriteItem{update}, Session: next, statusChanged: true}, nil
}

// unchanged is the condition of every update of a session read before: its message count, status
// and archive flag are still those read, and it has not expired since. The index partitions
// derive from status and archive flag, so no write can file a session under a state it no longer
// has; and no write renews a session the retention cleanup may be deleting.
const unchanged = "messageCount = :seenCount AND #status = :seenStatus AND archived = :seenArchived AND " + liveAt

// liveAt is the expiry part of unchanged, at the write's time.
const liveAt = "expiresAt > :liveAt"

func withUnchanged(seen chat.Session, now time.Time, values map[string]types.AttributeValue) map[string]types.AttributeValue {
	values[":seenCount"] = dynamo.Num(int64(seen.MessageCount))
	values[":seenStatus"] = dynamo.Str(string(seen.Status))
	values[":seenArchived"] = boolean(seen.Archived)
	values[":liveAt"] = dynamo.Num(now.Unix())
	return values
}

func checkSession(sess chat.Session) error {
	if sess.ID == "" || sess.TenantID == "" || sess.UserID == "" {
		return errors.New("session needs an ID, a tenant and a user")
	}
	if !sess.Status.Valid() {
		return fmt.Errorf("session %s: status %q is not a session status", sess.ID, sess.Status)
	}
	return nil
}

// advance computes the session and messages after a step, and the Puts of the messages and the
// snapshot.
func (s *Store) advance(sess chat.Session, step Step, now time.Time) (Batch, error) {
	next := sess
	next.Metadata = maps.Clone(sess.Metadata)
	if step.Status != "" {
		if !step.Status.Valid() {
			return Batch{}, fmt.Errorf("status %q is not a session status", step.Status)
		}
		next.Status = step.Status
	}
	if step.TaskID != "" {
		next.TaskID = step.TaskID
	}
	next.UpdatedAt = now
	next.MessageCount = sess.MessageCount + len(step.Messages)
	next.ExpiresAt = s.Retention.SessionExpiry(next.Status, now)

	b := Batch{Session: next, statusChanged: next.Status != sess.Status}
	referenced := false
	for i, m := range step.Messages {
		if err := m.Validate(); err != nil {
			return Batch{}, fmt.Errorf("message %d: %w", i+1, err)
		}
		if m.ID == "" {
			m.ID = uuid.NewString()
		}
		if m.Timestamp.IsZero() {
			m.Timestamp = now
		}
		m.Timestamp = m.Timestamp.UTC().Round(0)
		m.SessionID, m.TaskID = next.ID, next.TaskID
		m.SequenceNumber = sess.MessageCount + i + 1
		m.ExpiresAt = next.ExpiresAt
		item, err := attributevalue.MarshalMap(newMessageItem(next.TenantID, m))
		if err != nil {
			return Batch{}, fmt.Errorf("message %d: %w", m.SequenceNumber, err)
		}
		b.Items = append(b.Items, types.TransactWriteItem{Put: &types.Put{
			TableName: &s.messages, Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)"),
		}})
		b.Messages = append(b.Messages, m)
		referenced = referenced || (step.Snapshot != nil && m.SnapshotID == step.Snapshot.ID)
	}
	if snap := step.Snapshot; snap != nil {
		if !referenced {
			return Batch{}, fmt.Errorf("snapshot %s: no message of the step references it", snap.ID)
		}
		it := snapshotItem{
			PK: SessionPK(next.TenantID, next.ID), SK: snapshotSK(snap.ID),
			SnapshotID: snap.ID, Gzip: snap.Gzip, DOMLength: snap.Length,
			CreatedAt: dynamo.Sortable(now), ExpiresAt: s.Retention.SnapshotExpiry(now, next.ExpiresAt),
		}
		it.RetentionPK, it.RetentionSK = expiryindex.Keys(it.PK, it.ExpiresAt)
		item, err := attributevalue.MarshalMap(it)
		if err != nil {
			return Batch{}, fmt.Errorf("snapshot %s: %w", snap.ID, err)
		}
		// Unconditional: the key is the content's hash, so writing it again changes nothing but
		// its expiry. Of two racing steps only one commits anyway.
		b.Items = append(b.Items, types.TransactWriteItem{Put: &types.Put{TableName: &s.messages, Item: item}})
	}
	return b, nil
}

// Conflict returns chat.ErrConcurrentAppend when err is a canceled transaction and the item that
// canceled it, by failed condition or concurrent transaction, is one of the store's (items is
// the transaction as sent, the caller's items included); otherwise nil.
func (s *Store) Conflict(err error, items []types.TransactWriteItem) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	for i, r := range tce.CancellationReasons {
		switch code := aws.ToString(r.Code); code {
		case "ConditionalCheckFailed", "TransactionConflict":
			if i < len(items) && s.owns(items[i]) {
				return fmt.Errorf("%s on item %d of the transaction: %w", code, i+1, chat.ErrConcurrentAppend)
			}
		}
	}
	return nil
}

func (s *Store) owns(it types.TransactWriteItem) bool {
	var table *string
	switch {
	case it.Put != nil:
		table = it.Put.TableName
	case it.Update != nil:
		table = it.Update.TableName
	case it.Delete != nil:
		table = it.Delete.TableName
	case it.ConditionCheck != nil:
		table = it.ConditionCheck.TableName
	}
	t := aws.ToString(table)
	return t == s.sessions || t == s.messages
}

// Create creates sess with the step's messages, alone in a transaction; a session with its ID
// existing already is chat.ErrConcurrentAppend.
func (s *Store) Create(ctx context.Context, sess chat.Session, step Step) (chat.Session, error) {
	b, err := s.CreateWrites(sess, step, s.now())
	if err != nil {
		return chat.Session{}, err
	}
	if err := s.commit(ctx, b); err != nil {
		return chat.Session{}, fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return b.Session, nil
}

// Append appends the step's messages to sess (as read), alone in a transaction; a lost race is
// chat.ErrConcurrentAppend.
func (s *Store) Append(ctx context.Context, sess chat.Session, step Step) (chat.Session, error) {
	b, err := s.AppendWrites(sess, step, s.now())
	if err != nil {
		return chat.Session{}, err
	}
	if err := s.commit(ctx, b); err != nil {
		return chat.Session{}, fmt.Errorf("append to session %s: %w", sess.ID, err)
	}
	return b.Session, nil
}

// SetStatus sets a session's status, following its task, alone in a transaction.
func (s *Store) SetStatus(ctx context.Context, tenantID, sessionID string, status chat.Status) (chat.Session, error) {
	sess, err := s.getSession(ctx, tenantID, sessionID)
	if err != nil {
		return chat.Session{}, fmt.Errorf("set session %s status: %w", sessionID, err)
	}
	b, err := s.StatusWrites(sess, status, s.now())
	if err != nil {
		return chat.Session{}, err
	}
	if err := s.commit(ctx, b); err != nil {
		return chat.Session{}, fmt.Errorf("set session %s status: %w", sessionID, err)
	}
	return b.Session, nil
}

// commit writes a batch alone, then settles it (AfterCommit). The request token makes the SDK's
// retries of a transaction that did commit succeed instead of failing their own conditions.
func (s *Store) commit(ctx context.Context, b Batch) error {
	if len(b.Items) == 0 {
		return nil
	}
	_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems:      b.Items,
		ClientRequestToken: aws.String(uuid.NewString()),
	})
	if err != nil {
		if c := s.Conflict(err, b.Items); c != nil {
			return c
		}
		return err
	}
	return s.AfterCommit(ctx, b)
}

// AfterCommit settles a batch once the transaction holding its items has committed: when the
// session's status changed, the messages written before carry the expiry of the old status, and
// are given the session's (and snapshots are cut to it). It does nothing otherwise, and is safe
// to repeat. Call it after committing any Batch; a failure leaves the data consistent with each
// item's own expiry, only not aligned (log it, do not fail the request).
func (s *Store) AfterCommit(ctx context.Context, b Batch) error {
	if !b.statusChanged {
		return nil
	}
	if err := s.alignRetention(ctx, b.Session.TenantID, b.Session.ID); err != nil {
		return fmt.Errorf("align retention of session %s: %w", b.Session.ID, err)
	}
	return nil
}

// alignParallel bounds the concurrent updates of alignRetention.
const alignParallel = 8

// alignRetention gives every live message of a session the session's current expiry, and cuts
// snapshots that would outlive it. Messages already expired stay expired.
func (s *Store) alignRetention(ctx context.Context, tenantID, sessionID string) error {
	sess, err := s.getSession(ctx, tenantID, sessionID)
	if errors.Is(err, chat.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now, target := s.now(), sess.ExpiresAt
	pk := SessionPK(tenantID, sessionID)
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                &s.messages,
		KeyConditionExpression:   aws.String("PK = :pk AND begins_with(SK, :msg)"),
		ProjectionExpression:     aws.String("SK, expiresAt, snapshotId, #ts"),
		ExpressionAttributeNames: map[string]string{"#ts": "timestamp"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": dynamo.Str(pk), ":msg": dynamo.Str(msgPrefix),
		},
	})
	var updates []func(context.Context) error
	snapshots := map[string]bool{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		var rows []struct {
			SK         string
			ExpiresAt  time.Time `dynamodbav:"expiresAt,unixtime"`
			SnapshotID string    `dynamodbav:"snapshotId"`
			Timestamp  string    `dynamodbav:"timestamp"`
		}
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &rows); err != nil {
			return err
		}
		for _, r := range rows {
			if expired(r.ExpiresAt, now) {
				continue
			}
			if r.ExpiresAt.Unix() != target.Unix() {
				updates = append(updates, s.setExpiry(dynamo.Key(pk, r.SK), target, now, false))
			}
			ts, err := dynamo.ParseTime(r.Timestamp)
			if err != nil {
				return err
			}
			if r.SnapshotID != "" && !snapshots[r.SnapshotID] && ts.Add(s.Retention.Snapshot).After(target) {
				snapshots[r.SnapshotID] = true
				updates = append(updates, s.setExpiry(dynamo.Key(pk, snapshotSK(r.SnapshotID)), target, now, true))
			}
		}
	}
	return runAll(ctx, alignParallel, updates)
}

// setExpiry returns an update of one live item's expiry to exp; for a snapshot, only lowering it,
// and moving its Retention index entry along. An item gone or expired meanwhile is left alone.
func (s *Store) setExpiry(k map[string]types.AttributeValue, exp, now time.Time, snapshot bool) func(context.Context) error {
	cond := "attribute_exists(PK) AND " + live
	update := "SET expiresAt = :exp"
	values := map[string]types.AttributeValue{":exp": epoch(exp), ":now": dynamo.Num(now.Unix())}
	if snapshot {
		cond += " AND expiresAt > :exp"
		update += ", RetentionSK = :retentionSK"
		values[":retentionSK"] = dynamo.Str(expiryindex.SortKey(exp))
	}
	return func(ctx context.Context) error {
		_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 &s.messages,
			Key:                       k,
			UpdateExpression:          aws.String(update),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeValues: values,
		})
		if dynamo.ConditionFailed(err) {
			return nil
		}
		return err
	}
}

// runAll runs fns with at most n at a time.
func runAll(ctx context.Context, n int, fns []func(context.Context) error) error {
	errs := make([]error, len(fns))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, f := range fns {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = f(ctx)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
