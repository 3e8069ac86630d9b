package accountsdb

import (
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/fakeclock"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// t0 is the fake clock's start: the real present, because DynamoDB Local runs TTL and would delete
// items that look expired to it; with a sub-second part so round trips prove nanoseconds survive.
var t0 = time.Now().UTC().Truncate(time.Second).Add(123456789)

// newStore returns a Store on a fresh table whose clock starts at t0.
func newStore(t *testing.T) (*Store, *fakeclock.Clock) {
	t.Helper()
	db := dynamotest.New(t)
	c := fakeclock.New(t0)
	s := New(db.Client, db.Tables["AccountsTable"])
	s.Now = c.Now
	return s, c
}
