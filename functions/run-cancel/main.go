// Command run-cancel serves POST /agent/run/{runId}/cancel.
package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "POST /agent/run/{runId}/cancel"

func main() {
	runapi.Main(route, func(svc *runs.Service) http.Handler { return newHandler(svc) })
}
