// Command cleanup is the scheduled retention cleanup (EventBridge Scheduler, hourly; see the
// template's CleanupFunction). It is not an HTTP route: it takes the scheduled event as is.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/logging"
	"github.com/screenagent/backend/shared/retention"
	"github.com/screenagent/backend/shared/retention/cleanup"
)

func main() {
	ctx := context.Background()
	a, err := app.New(ctx)
	var policy retention.Config
	if err == nil {
		policy, err = a.Retention()
	}
	if err != nil {
		logging.New(os.Stderr, slog.LevelInfo).Error("init failed", "function", "cleanup", "error", fmt.Sprint(err))
		os.Exit(1)
	}
	tables := cleanup.Tables{Tasks: a.Config.TasksTable, Sessions: a.Config.SessionsTable, Messages: a.Config.MessagesTable}
	lambda.Start(newHandler(cleanup.New(a.DynamoDB, tables, policy, a.Logger), a.Logger))
}
