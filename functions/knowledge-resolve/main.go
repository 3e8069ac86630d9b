// Command knowledge-resolve serves GET /api/knowledge/resolve.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/knowledge/retrieval"
	"github.com/screenagent/backend/shared/ratelimit"
)

func main() {
	app.Main("GET /api/knowledge/resolve", func(_ context.Context, a *app.App) (http.Handler, error) {
		svc, err := retrieval.New(a.Config, a.DynamoDB)
		if err != nil {
			return nil, err
		}
		return a.Protect(ratelimit.ClassResolve, newHandler(svc, a.Accounts()))
	})
}
