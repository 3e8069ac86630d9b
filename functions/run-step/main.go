// Command run-step serves POST /agent/run/{runId}/step: the run's next action.
package main

import (
	"context"
	"net/http"
	"os"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/actioncache/cachedb"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/llm/provider"
	"github.com/screenagent/backend/shared/metrics"
	"github.com/screenagent/backend/shared/realtimeapp"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "POST /agent/run/{runId}/step"

func main() {
	handler := func(svc *runs.Service) http.Handler {
		return newHandler(svc, metrics.New(os.Stdout, "ScreenAgent"))
	}
	runapi.Main(route, handler, func(ctx context.Context, a *app.App, svc *runs.Service) error {
		client, info, err := provider.Load(ctx, a.Config, a.Logger)
		if err != nil {
			return err
		}
		svc.LLM = client
		svc.Gate = runapi.TenantGate{Accounts: a.Accounts()}
		svc.Model = info.Model
		svc.Cache = &actioncache.Cache{Store: cachedb.New(a.DynamoDB, a.Config.TasksTable)}
		svc.Events, err = realtimeapp.Publisher(a)
		return err
	})
}
