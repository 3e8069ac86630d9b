package chatdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
)

// GetSession returns a session of the tenant, or chat.ErrNotFound when there is none (another
// tenant's is none: the key holds the tenant) or it has expired.
func (s *Store) GetSession(ctx context.Context, tenantID, sessionID string) (chat.Session, error) {
	sess, err := s.getSession(ctx, tenantID, sessionID)
	if err != nil {
		return chat.Session{}, fmt.Errorf("get session %s: %w", sessionID, err)
	}
	return sess, nil
}

func (s *Store) getSession(ctx context.Context, tenantID, sessionID string) (chat.Session, error) {
	if tenantID == "" || sessionID == "" {
		return chat.Session{}, chat.ErrNotFound
	}
	item, err := s.getItem(ctx, s.sessions, dynamo.Key(SessionPK(tenantID, sessionID), SessionSK))
	if err != nil {
		return chat.Session{}, err
	}
	if item == nil {
		return chat.Session{}, chat.ErrNotFound
	}
	return s.liveSession(item)
}

// liveSession decodes a session item, or returns chat.ErrNotFound when it has expired.
func (s *Store) liveSession(item map[string]types.AttributeValue) (chat.Session, error) {
	var it sessionItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return chat.Session{}, err
	}
	sess, err := it.session()
	if err != nil {
		return chat.Session{}, err
	}
	if expired(sess.ExpiresAt, s.now()) {
		return chat.Session{}, chat.ErrNotFound
	}
	return sess, nil
}

// ListSessions returns a page of a user's sessions matching f, newest update first, skipping
// offset of them, with the number matching in all. It reads offset+limit+1 index entries, the
// page's sessions, and counts the entries past them.
func (s *Store) ListSessions(ctx context.Context, tenantID, userID string, f chat.ListFilter, limit, offset int) (chat.SessionPage, error) {
	page, err := s.listSessions(ctx, tenantID, userID, f, limit, offset)
	if err != nil {
		return chat.SessionPage{}, fmt.Errorf("list sessions of user %s: %w", userID, err)
	}
	return page, nil
}

func (s *Store) listSessions(ctx context.Context, tenantID, userID string, f chat.ListFilter, limit, offset int) (chat.SessionPage, error) {
	if f.Status != "" && !f.Status.Valid() {
		return chat.SessionPage{}, fmt.Errorf("status %q is not a session status", f.Status)
	}
	if limit < 1 || offset < 0 {
		return chat.SessionPage{}, fmt.Errorf("limit %d and offset %d: want limit ≥ 1, offset ≥ 0", limit, offset)
	}
	var views []bool
	switch f.Archived {
	case chat.ExcludeArchived:
		views = []bool{false}
	case chat.IncludeArchived:
		views = []bool{false, true}
	case chat.OnlyArchived:
		views = []bool{true}
	default:
		return chat.SessionPage{}, fmt.Errorf("archived filter %d is unknown", f.Archived)
	}
	now := s.now()
	streams := make([]*stream, len(views))
	for i, archived := range views {
		streams[i] = s.sessionIndex(tenantID, userID, archived, f.Status, now)
	}

	// Merge the partitions by recency, newest first; take the one past the page to learn hasMore.
	need := offset + limit + 1
	var window []entry
	taken := 0
	for taken < need {
		var best *stream
		var next entry
		for _, st := range streams {
			e, ok, err := st.peek(ctx, need-taken)
			if err != nil {
				return chat.SessionPage{}, err
			}
			if ok && (best == nil || e.order > next.order) {
				best, next = st, e
			}
		}
		if best == nil {
			break
		}
		best.pop()
		if taken >= offset {
			window = append(window, next)
		}
		taken++
	}
	window = window[:min(len(window), limit)]
	total := taken
	for _, st := range streams {
		n, err := st.rest(ctx)
		if err != nil {
			return chat.SessionPage{}, err
		}
		total += n
	}
	sessions, err := s.batchGetSessions(ctx, window)
	if err != nil {
		return chat.SessionPage{}, err
	}
	return chat.SessionPage{Sessions: sessions, Total: total, HasMore: taken == need}, nil
}

// LatestSession returns the user's unarchived session of the status updated last, or
// chat.ErrNotFound.
func (s *Store) LatestSession(ctx context.Context, tenantID, userID string, status chat.Status) (chat.Session, error) {
	sess, err := s.latestSession(ctx, tenantID, userID, status)
	if err != nil {
		return chat.Session{}, fmt.Errorf("latest %s session of user %s: %w", status, userID, err)
	}
	return sess, nil
}

func (s *Store) latestSession(ctx context.Context, tenantID, userID string, status chat.Status) (chat.Session, error) {
	if !status.Valid() {
		return chat.Session{}, fmt.Errorf("status %q is not a session status", status)
	}
	st := s.sessionIndex(tenantID, userID, false, status, s.now())
	for {
		e, ok, err := st.peek(ctx, 1)
		if err != nil {
			return chat.Session{}, err
		}
		if !ok {
			return chat.Session{}, chat.ErrNotFound
		}
		st.pop()
		// The index lags the table: confirm on the item itself.
		sess, err := s.getSession(ctx, tenantID, e.sessionID)
		if errors.Is(err, chat.ErrNotFound) {
			continue
		}
		if err != nil {
			return chat.Session{}, err
		}
		if sess.Status == status && !sess.Archived && sess.UserID == userID {
			return sess, nil
		}
	}
}

// archiveAttempts bounds Archive's retries when the session changes under it.
const archiveAttempts = 3

// Archive archives a user's session, keeping its status: chat.ErrNotFound when the tenant has no
// such live session, chat.ErrForbidden when it is another user's. Archiving an archived session
// returns it unchanged; a session that keeps changing under it is chat.ErrConcurrentAppend.
// UpdatedAt is left alone: archiving is not conversation.
func (s *Store) Archive(ctx context.Context, tenantID, userID, sessionID string) (chat.Session, error) {
	for range archiveAttempts {
		sess, err := s.getSession(ctx, tenantID, sessionID)
		if err != nil {
			return chat.Session{}, fmt.Errorf("archive session %s: %w", sessionID, err)
		}
		if sess.UserID != userID {
			return chat.Session{}, fmt.Errorf("archive session %s: %w", sessionID, chat.ErrForbidden)
		}
		if sess.Archived {
			return sess, nil
		}
		now := s.now()
		res, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                &s.sessions,
			Key:                      dynamo.Key(SessionPK(tenantID, sessionID), SessionSK),
			UpdateExpression:         aws.String("SET archived = :true, archivedAt = :now, GSI1PK = :byUser, GSI2PK = :byStatus"),
			ConditionExpression:      aws.String("#status = :seenStatus AND archived = :false"),
			ExpressionAttributeNames: map[string]string{"#status": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":true":       boolean(true),
				":false":      boolean(false),
				":now":        dynamo.Str(dynamo.Sortable(now)),
				":byUser":     dynamo.Str(userPartition(tenantID, userID, true)),
				":byStatus":   dynamo.Str(statusPartition(tenantID, userID, true, sess.Status)),
				":seenStatus": dynamo.Str(string(sess.Status)),
			},
			ReturnValues: types.ReturnValueAllNew,
		})
		if dynamo.ConditionFailed(err) {
			continue
		}
		if err != nil {
			return chat.Session{}, fmt.Errorf("archive session %s: %w", sessionID, err)
		}
		var it sessionItem
		if err := attributevalue.UnmarshalMap(res.Attributes, &it); err != nil {
			return chat.Session{}, fmt.Errorf("archive session %s: %w", sessionID, err)
		}
		return it.session()
	}
	return chat.Session{}, fmt.Errorf("archive session %s: %w", sessionID, chat.ErrConcurrentAppend)
}

// entry is one lean index entry: the session it stands for and its sort key.
type entry struct {
	sessionID string
	pk        string
	order     string
}

// stream walks one index partition newest first, skipping expired entries, in pages no larger
// than asked for.
type stream struct {
	s     *Store
	input dynamodb.QueryInput
	buf   []entry
	next  map[string]types.AttributeValue
	done  bool
}

func (s *Store) sessionIndex(tenantID, userID string, archived bool, status chat.Status, now time.Time) *stream {
	index, pkName, skName, pk := gsi1, "GSI1PK", "GSI1SK", userPartition(tenantID, userID, archived)
	if status != "" {
		index, pkName, skName, pk = gsi2, "GSI2PK", "GSI2SK", statusPartition(tenantID, userID, archived, status)
	}
	return &stream{s: s, input: dynamodb.QueryInput{
		TableName:                &s.sessions,
		IndexName:                aws.String(index),
		KeyConditionExpression:   aws.String("#pk = :pk"),
		FilterExpression:         aws.String(live),
		ProjectionExpression:     aws.String("PK, #sk"),
		ExpressionAttributeNames: map[string]string{"#pk": pkName, "#sk": skName},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": dynamo.Str(pk), ":now": dynamo.Num(now.Unix()),
		},
		ScanIndexForward: aws.Bool(false),
	}}
}

// peek returns the next entry without taking it, fetching up to want entries when none is buffered.
func (st *stream) peek(ctx context.Context, want int) (entry, bool, error) {
	for len(st.buf) == 0 && !st.done {
		in := st.input
		in.ExclusiveStartKey = st.next
		in.Limit = aws.Int32(int32(min(max(want, 1), 1000)))
		out, err := st.s.client.Query(ctx, &in)
		if err != nil {
			return entry{}, false, err
		}
		sk := st.input.ExpressionAttributeNames["#sk"]
		for _, item := range out.Items {
			var pk, order string
			if err := attributevalue.Unmarshal(item["PK"], &pk); err != nil {
				return entry{}, false, err
			}
			if err := attributevalue.Unmarshal(item[sk], &order); err != nil {
				return entry{}, false, err
			}
			st.buf = append(st.buf, entry{sessionID: sessionOfPK(pk), pk: pk, order: order})
		}
		st.next = out.LastEvaluatedKey
		st.done = st.next == nil
	}
	if len(st.buf) == 0 {
		return entry{}, false, nil
	}
	return st.buf[0], true, nil
}

func (st *stream) pop() { st.buf = st.buf[1:] }

// rest counts the live entries not taken yet.
func (st *stream) rest(ctx context.Context) (int, error) {
	n := len(st.buf)
	for !st.done {
		in := st.input
		in.ExclusiveStartKey = st.next
		in.Select = types.SelectCount
		in.ProjectionExpression = nil
		in.ExpressionAttributeNames = map[string]string{"#pk": st.input.ExpressionAttributeNames["#pk"]}
		out, err := st.s.client.Query(ctx, &in)
		if err != nil {
			return 0, err
		}
		n += int(out.Count)
		st.next = out.LastEvaluatedKey
		st.done = st.next == nil
	}
	return n, nil
}

// sessionOfPK is the session ID at the end of a session's PK (TENANT#t#SESSION#s).
func sessionOfPK(pk string) string {
	return pk[strings.LastIndex(pk, sessionMarker)+len(sessionMarker):]
}

// batchGetSessions reads the sessions of entries, in their order, leaving out those gone or
// expired since the index was read.
func (s *Store) batchGetSessions(ctx context.Context, entries []entry) ([]chat.Session, error) {
	found := map[string]chat.Session{}
	keys := make([]map[string]types.AttributeValue, 0, len(entries))
	for _, e := range entries {
		keys = append(keys, dynamo.Key(e.pk, SessionSK))
	}
	items, err := dynamo.BatchGet(ctx, s.client, s.sessions, keys, types.KeysAndAttributes{ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	for _, item := range items {
		sess, err := s.liveSession(item)
		if errors.Is(err, chat.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found[sess.ID] = sess
	}
	sessions := make([]chat.Session, 0, len(entries))
	for _, e := range entries {
		if sess, ok := found[e.sessionID]; ok {
			sessions = append(sessions, sess)
		}
	}
	return sessions, nil
}
