package agenttest

import (
	"testing"
	"time"

	"github.com/screenagent/backend/shared/chat"
)

func TestStoresKeepTheContract(t *testing.T) {
	Contract(t, func(_ *testing.T, now func() time.Time) Stores {
		tasks, sessions := NewTasks(TaskRetention), NewChat(chat.DefaultRetention())
		tasks.Now, sessions.Now = now, now
		return Stores{Tasks: tasks, Chat: sessions, Commit: &Writer{Tasks: tasks, Chat: sessions}}
	})
}
