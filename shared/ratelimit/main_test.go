package ratelimit

import (
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// windowStart is the start of a minute (and a 15-minute) window; tests pin their clock inside
// it, so no test depends on when it runs. It lies in the future: DynamoDB Local's TTL deletes
// counters whose expiry has passed in real time, which would make a count vanish mid-test.
var windowStart = time.Unix(4_102_444_800, 0) // 2100-01-01T00:00:00Z

// fixedClock is a clock tests move by hand between requests, never while requests run.
type fixedClock struct{ t time.Time }

func (c *fixedClock) now() time.Time { return c.t }

// newLimiter returns a Limiter over this test's RateLimits table whose clock reads at.
func newLimiter(t testing.TB, at time.Time) (*Limiter, *dynamotest.DB, *fixedClock) {
	t.Helper()
	db := dynamotest.New(t)
	clock := &fixedClock{t: at}
	l := New(db.Client, db.Tables["RateLimitsTable"])
	l.Now = clock.now
	return l, db, clock
}
