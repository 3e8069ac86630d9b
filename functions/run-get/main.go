// Command run-get serves GET /agent/run/{runId}: a run's full state.
package main

import (
	"context"
	"net/http"
	"slices"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "GET /agent/run/{runId}"

func main() {
	required := slices.Concat(app.AuthRequired, []string{config.EnvTasksTable})
	app.Main(route, required, func(_ context.Context, a *app.App) (http.Handler, error) {
		store, err := runapi.NewStore(a)
		if err != nil {
			return nil, err
		}
		svc := &runs.Service{Store: store, Logger: a.Logger}
		return runapi.Protect(a, newHandler(svc))
	})
}
