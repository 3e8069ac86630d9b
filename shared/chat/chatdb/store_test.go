package chatdb

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/fakeclock"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// t0 is the fake clock's start: the real present, because DynamoDB Local runs TTL and would
// delete items whose expiry is in the real past; sub-second so that round trips prove
// nanoseconds survive.
var t0 = time.Now().UTC().Truncate(time.Second).Add(123456789)

// newStore returns a Store on fresh tables whose clock starts at t0.
func newStore(t *testing.T) (*Store, *fakeclock.Clock, *dynamotest.DB) {
	t.Helper()
	db := dynamotest.New(t)
	c := fakeclock.New(t0)
	s := New(db.Client, db.Tables["SessionsTable"], db.Tables["MessagesTable"], chat.DefaultRetention())
	s.Now = c.Now
	return s, c, db
}

// create stores a new session of a user with the query as its first message, at the store's clock.
func create(t *testing.T, s *Store, tenantID, userID, query string) chat.Session {
	t.Helper()
	sess, err := chat.NewSession(tenantID, userID, "task-1", "https://shop.example.com/cart", query, s.Now())
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	sess, err = s.Create(t.Context(), sess, Step{Messages: []chat.Message{{Role: chat.RoleUser, Content: query}}})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return sess
}

// appendMsgs appends assistant messages with the given contents to sess as read.
func appendMsgs(t *testing.T, s *Store, sess chat.Session, contents ...string) chat.Session {
	t.Helper()
	var msgs []chat.Message
	for _, c := range contents {
		msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: c})
	}
	sess, err := s.Append(t.Context(), sess, Step{Messages: msgs})
	if err != nil {
		t.Fatalf("Append(%q): %v", contents, err)
	}
	return sess
}

// rawItems returns the items of a session's partition in the Messages table whose sort key
// starts with prefix (every item for ""), expired or not.
func rawItems(t *testing.T, s *Store, tenantID, sessionID, prefix string) []map[string]types.AttributeValue {
	t.Helper()
	cond, values := "PK = :pk", map[string]types.AttributeValue{":pk": dynamo.Str(SessionPK(tenantID, sessionID))}
	if prefix != "" {
		cond += " AND begins_with(SK, :p)"
		values[":p"] = dynamo.Str(prefix)
	}
	out, err := s.client.Query(t.Context(), &dynamodb.QueryInput{
		TableName:                 &s.messages,
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeValues: values,
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("query partition: %v", err)
	}
	return out.Items
}

func contents(msgs []chat.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

func sequence(msgs []chat.Message) []int {
	out := make([]int, len(msgs))
	for i, m := range msgs {
		out[i] = m.SequenceNumber
	}
	return out
}

func TestParseSessionPK(t *testing.T) {
	tests := []struct {
		pk, tenant, session string
		ok                  bool
	}{
		{SessionPK("t1", "s1"), "t1", "s1", true},
		{"TENANT#org#x#SESSION#s1", "org#x", "s1", true},
		{"TENANT#t1#TASK#s1", "", "", false},
		{"TENANT##SESSION#s1", "", "", false},
		{"TENANT#t1#SESSION#", "", "", false},
		{"SESSION#s1", "", "", false},
	}
	for _, tc := range tests {
		tenant, session, ok := ParseSessionPK(tc.pk)
		if tenant != tc.tenant || session != tc.session || ok != tc.ok {
			t.Errorf("ParseSessionPK(%q): got (%q, %q, %v), want (%q, %q, %v)", tc.pk, tenant, session, ok, tc.tenant, tc.session, tc.ok)
		}
	}
}
