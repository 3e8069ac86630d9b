// Command run-start serves POST /agent/run/start: a new run of the thin-client agent.
package main

import (
	"context"
	"net/http"
	"os"
	"slices"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

func main() {
	required := slices.Concat(app.AuthRequired, []string{config.EnvTasksTable})
	app.Main("POST /agent/run/start", required, func(_ context.Context, a *app.App) (http.Handler, error) {
		store, err := runapi.NewStore(a)
		if err != nil {
			return nil, err
		}
		maxSteps, err := runs.MaxStepsFromEnv(os.Getenv)
		if err != nil {
			return nil, err
		}
		svc := &runs.Service{Store: store, MaxSteps: maxSteps, Logger: a.Logger}
		return runapi.Protect(a, newHandler(svc))
	})
}
