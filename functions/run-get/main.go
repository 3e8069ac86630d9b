// Command run-get serves GET /agent/run/{runId}: a run's full state.
package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "GET /agent/run/{runId}"

func main() {
	runapi.Main(route, func(svc *runs.Service) http.Handler { return newHandler(svc) })
}
