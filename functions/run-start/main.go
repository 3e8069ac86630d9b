// Command run-start serves POST /agent/run/start: a new run of the thin-client agent.
package main

import (
	"cmp"
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "POST /agent/run/start"

func main() {
	runapi.Main(route, func(svc *runs.Service) http.Handler { return newHandler(svc) },
		func(_ context.Context, a *app.App, svc *runs.Service) error {
			svc.MaxSteps = cmp.Or(a.Config.RunMaxSteps, runs.DefaultMaxSteps)
			return nil
		})
}
