package accountsdb

import (
	"testing"
	"time"

	"github.com/screenagent/backend/shared/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// t0 is the fake clock's start: the real present, because DynamoDB Local runs TTL and would delete
// items that look expired to it; with a sub-second part so round trips prove nanoseconds survive.
var t0 = time.Now().UTC().Truncate(time.Second).Add(123456789)

// clock is a settable fake time.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) Advance(d time.Duration) { c.now = c.now.Add(d) }

// newStore returns a Store on a fresh table whose clock starts at t0.
func newStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	db := dynamotest.New(t)
	c := &clock{now: t0}
	s := New(db.Client, db.Tables["AccountsTable"])
	s.Now = c.Now
	return s, c
}
