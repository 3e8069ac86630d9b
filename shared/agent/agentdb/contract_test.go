package agentdb

import (
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/agent/agenttest"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// TestStoresKeepTheContract holds the DynamoDB stores and writer to what the engine relies on,
// as the in-memory ones of the engine's tests are: the two cannot drift apart.
func TestStoresKeepTheContract(t *testing.T) {
	agenttest.Contract(t, func(t *testing.T, now func() time.Time) agenttest.Stores {
		db := dynamotest.New(t)
		tasks := tasksdb.New(db.Client, db.Tables["TasksTable"], agenttest.TaskRetention)
		sessions := chatdb.New(db.Client, db.Tables["SessionsTable"], db.Tables["MessagesTable"], chat.DefaultRetention())
		tasks.Now, sessions.Now = now, now
		return agenttest.Stores{Tasks: tasks, Chat: sessions, Commit: &Writer{Tasks: tasks, Chat: sessions, DB: db.Client}}
	})
}
