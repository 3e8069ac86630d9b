// Command debug-export serves GET /api/debug/session/{taskId}/export: everything known about a
// task as one JSON download.
package main

import (
	"context"
	"net/http"
	"time"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/ratelimit"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

// route is the function's event in template.yaml; the handler reads its path parameter.
const route = "GET /api/debug/session/{taskId}/export"

func main() {
	app.Main(route, func(_ context.Context, a *app.App) (http.Handler, error) {
		policy, err := a.Retention()
		if err != nil {
			return nil, err
		}
		return a.Protect(ratelimit.ClassDebug, newHandler(
			tasksdb.New(a.DynamoDB, a.Config.TasksTable, policy.Tasks),
			chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable, policy.Chat),
			time.Now,
		))
	})
}
