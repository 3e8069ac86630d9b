// Command health serves GET /health, the run API's health check (PROXY_SERVER_API.md).
package main

import (
	"context"
	"net/http"
	"time"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/llm"
)

func main() {
	app.Main("GET /health", func(_ context.Context, a *app.App) (http.Handler, error) {
		// An incomplete LLM configuration still has a model and base URL to report.
		info, _ := llm.Describe(a.Config)
		return newHandler(info.Model, info.BaseURL, time.Now), nil
	})
}
