// Command run-answer serves POST /agent/run/{runId}/answer: the user's reply to a question.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/realtimeapp"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "POST /agent/run/{runId}/answer"

func main() {
	runapi.Main(route, func(svc *runs.Service) http.Handler { return newHandler(svc) }, func(_ context.Context, a *app.App, svc *runs.Service) (err error) {
		svc.Events, err = realtimeapp.Publisher(a)
		return err
	})
}
