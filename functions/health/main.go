// Command health serves GET /health, the run API's health check (PROXY_SERVER_API.md).
package main

import (
	"context"
	"net/http"
	"time"

	"github.com/screenagent/backend/shared/app"
)

func main() {
	app.Main("GET /health", nil, func(_ context.Context, a *app.App) (http.Handler, error) {
		return newHandler(a.Config.OpenAIModel, a.Config.OpenAIBaseURL, time.Now), nil
	})
}
