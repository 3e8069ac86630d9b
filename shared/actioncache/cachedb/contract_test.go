package cachedb

import (
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/actioncache/cachetest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// TestStoreKeepsTheContract holds the DynamoDB store to what the cache relies on, as the
// in-memory store of the cache's and the engines' tests is: the two cannot drift apart.
func TestStoreKeepsTheContract(t *testing.T) {
	cachetest.Contract(t, func(t *testing.T, now func() time.Time) actioncache.Store {
		db := dynamotest.New(t)
		s := New(db.Client, db.Tables["TasksTable"])
		s.Now = now
		return s
	})
}
