// Command run-answer serves POST /agent/run/{runId}/answer: the user's reply to a question.
package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

// route is the function's event in template.yaml.
const route = "POST /agent/run/{runId}/answer"

func main() {
	runapi.Main(route, func(svc *runs.Service) http.Handler { return newHandler(svc) })
}
