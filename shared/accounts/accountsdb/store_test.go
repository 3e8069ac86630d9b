package accountsdb

import (
	"testing"
	"time"

	"github.com/screenagent/backend/shared/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// t0 is the fake clock's start; sub-second so that round trips prove nanoseconds survive.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

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
