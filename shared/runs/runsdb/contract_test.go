package runsdb

import (
	"testing"
	"time"

	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runstest"
)

// TestStoreKeepsTheContract holds the DynamoDB store to what the service relies on, as the
// in-memory store of the service's tests is: the two cannot drift apart.
func TestStoreKeepsTheContract(t *testing.T) {
	runstest.Contract(t, func(t *testing.T, now func() time.Time) runs.Store {
		f := newFixture(t)
		f.store.Now = now
		return f.store
	})
}
