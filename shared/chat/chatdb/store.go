// Package chatdb stores the chat domain (sessions, messages, page snapshots) in the Sessions and
// Messages tables of template.yaml.
//
// Items (t = tenant, u = user, s = session; times are fixed-width RFC 3339 with nanoseconds so
// they sort as strings; expiresAt is epoch seconds, the tables' TTL):
//
//	Sessions  session   PK=TENANT#t#SESSION#s  SK=SESSION
//	                    GSI1PK=TENANT#t#USER#u#<view>           GSI1SK=<updatedAt>#s
//	                    GSI2PK=TENANT#t#USER#u#<view>#<status>  GSI2SK=<updatedAt>#s
//	                    RetentionPK=SESSIONS#active             RetentionSK=<updatedAt>#t#s   (while active)
//	                    RetentionPK=EXPIRES#<shard>             RetentionSK=<expiresAt>       (once ended)
//	Messages  message   PK=TENANT#t#SESSION#s  SK=MSG#<sequence number, 10 digits>
//	          snapshot  PK=TENANT#t#SESSION#s  SK=SNAP#<hex SHA-256 of the page>
//	                    RetentionPK=EXPIRES#<shard>             RetentionSK=<expiresAt>
//
// The Retention index (package expiry) is how the retention cleanup finds idle active sessions,
// ended sessions and snapshots past their retention; messages are deleted with their session.
// No write renews an expired session (every update requires it to be live), so the cleanup can
// delete an expired session's messages without racing a step.
//
// <view> is LIVE or ARCHIVED, so that hiding archived sessions is a choice of partition, not a
// filter. Both indexes project only keys and expiresAt: a page walks offset+limit entries and
// reads its sessions from the table; a total is a COUNT query over the lean entries (exact under
// TTL lag, and no per-user counter item for every step's transaction to contend on).
//
// A session's messages and snapshots share its partition key, so a session's data is one Query
// and a cascading delete one partition. Snapshots are deduplicated per session: the same page
// in two sessions is stored twice, and no tenant can learn whether another stored a page.
package chatdb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
	expiryindex "github.com/screenagent/backend/shared/retention/expiry"
)

// DefaultMaxSnapshotBytes bounds a compressed page: DynamoDB items are at most 400 KB, and the
// snapshot item's keys and other attributes need well under the 50 KB left.
const DefaultMaxSnapshotBytes = 350_000

// Store reads and writes the chat tables.
type Store struct {
	client   *dynamodb.Client
	sessions string
	messages string
	// Retention sets every item's expiresAt; callers may replace the defaults before use.
	Retention chat.Retention
	// MaxSnapshotBytes is the largest compressed page stored.
	MaxSnapshotBytes int
	// Now is the clock of the convenience methods and of expiry checks on reads; tests replace it.
	Now func() time.Time
}

// New returns a Store on the Sessions and Messages tables that keeps what it writes as r says
// (chat.DefaultRetention(), or the deployment's policy from retention.ParseConfig), with the
// system clock.
func New(client *dynamodb.Client, sessionsTable, messagesTable string, r chat.Retention) *Store {
	return &Store{
		client:           client,
		sessions:         sessionsTable,
		messages:         messagesTable,
		Retention:        r,
		MaxSnapshotBytes: DefaultMaxSnapshotBytes,
		Now:              time.Now,
	}
}

// now is the clock in UTC without a monotonic reading, so that a value returned equals the one
// read back.
func (s *Store) now() time.Time { return s.Now().UTC().Round(0) }

// Index names and the key values of each item type.
const (
	gsi1       = "GSI1"
	gsi2       = "GSI2"
	msgPrefix  = "MSG#"
	snapPrefix = "SNAP#"
)

// SessionSK is the sort key of a session item.
const SessionSK = "SESSION"

// sessionMarker separates the tenant from the session in a session's PK.
const sessionMarker = "#SESSION#"

// SessionPK is the partition of a session: the session item in the Sessions table, its messages
// and snapshots in the Messages table.
func SessionPK(tenantID, sessionID string) string {
	return "TENANT#" + tenantID + sessionMarker + sessionID
}

// ParseSessionPK splits a session's PK (TENANT#<t>#SESSION#<s>); ok is false for any other key.
func ParseSessionPK(pk string) (tenantID, sessionID string, ok bool) {
	rest, found := strings.CutPrefix(pk, "TENANT#")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(rest, sessionMarker)
	if i <= 0 || i+len(sessionMarker) == len(rest) {
		return "", "", false
	}
	return rest[:i], rest[i+len(sessionMarker):], true
}

// ItemKind names an item of the store by its sort key, as the retention cleanup counts what it
// deletes: sessions, messages or snapshots. ok is false for a key the store does not write.
func ItemKind(sk string) (kind string, ok bool) {
	switch {
	case sk == SessionSK:
		return "sessions", true
	case strings.HasPrefix(sk, msgPrefix):
		return "messages", true
	case strings.HasPrefix(sk, snapPrefix):
		return "snapshots", true
	}
	return "", false
}
func messageSK(seq int) string    { return fmt.Sprintf("%s%010d", msgPrefix, seq) }
func snapshotSK(id string) string { return snapPrefix + id }

// ActivePartition is the Retention index partition of active sessions, by last update, where
// the retention cleanup looks for idle ones.
const ActivePartition = "SESSIONS#active"

// retentionKeys files an active session by last update and an ended one by expiry.
func retentionKeys(s chat.Session) (partition, sort string) {
	if s.Status == chat.StatusActive {
		return ActivePartition, expiryindex.ActiveSortKey(s.UpdatedAt, s.TenantID, s.ID)
	}
	return expiryindex.Keys(SessionPK(s.TenantID, s.ID), s.ExpiresAt)
}

func view(archived bool) string {
	if archived {
		return "ARCHIVED"
	}
	return "LIVE"
}

// userPartition is a session's GSI1 partition; statusPartition its GSI2 partition.
func userPartition(tenantID, userID string, archived bool) string {
	return "TENANT#" + tenantID + "#USER#" + userID + "#" + view(archived)
}

func statusPartition(tenantID, userID string, archived bool, st chat.Status) string {
	return userPartition(tenantID, userID, archived) + "#" + string(st)
}

// recency is both indexes' sort key: newest update last in key order, the session ID breaking ties.
func recency(updatedAt time.Time, sessionID string) string {
	return dynamo.Sortable(updatedAt) + "#" + sessionID
}

func boolean(v bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: v} }

// epoch is a time as the TTL attribute's value.
func epoch(t time.Time) types.AttributeValue { return dynamo.Num(t.Unix()) }

// live is the filter of every read: TTL deletes lazily, so an item past expiresAt is absent.
const live = "expiresAt > :now"

// expired reports whether an item with expiry exp is absent at now (the complement of live).
func expired(exp, now time.Time) bool { return exp.Unix() <= now.Unix() }

// getItem reads one item with strong consistency; the item is nil when it does not exist.
func (s *Store) getItem(ctx context.Context, table string, k map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	res, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	return res.Item, nil
}
