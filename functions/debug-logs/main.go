// Command debug-logs serves GET /api/debug/logs: the debug entries of the user's tasks.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/ratelimit"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

func main() {
	app.Main("GET /api/debug/logs", func(_ context.Context, a *app.App) (http.Handler, error) {
		policy, err := a.Retention()
		if err != nil {
			return nil, err
		}
		return a.Protect(ratelimit.ClassDebug, newHandler(tasksdb.New(a.DynamoDB, a.Config.TasksTable, policy.Tasks)))
	})
}
