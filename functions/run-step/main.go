// Command run-step serves POST /agent/run/{runId}/step: the run's next action.
package main

import (
	"context"
	"net/http"
	"os"
	"slices"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/llm/provider"
	"github.com/screenagent/backend/shared/metrics"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "POST /agent/run/{runId}/step"

func main() {
	required := slices.Concat(app.AuthRequired, []string{config.EnvTasksTable})
	app.Main(route, required, func(ctx context.Context, a *app.App) (http.Handler, error) {
		store, err := runapi.NewStore(a)
		if err != nil {
			return nil, err
		}
		client, info, err := provider.Load(ctx, a.Config, a.Logger)
		if err != nil {
			return nil, err
		}
		svc := &runs.Service{
			Store:  store,
			LLM:    client,
			Gate:   runapi.TenantGate{Accounts: a.Accounts()},
			Model:  info.Model,
			Logger: a.Logger,
		}
		return runapi.Protect(a, newHandler(svc, metrics.New(os.Stdout, "ScreenAgent")))
	})
}
