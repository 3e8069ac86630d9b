// Command knowledge-resolve serves GET /api/knowledge/resolve.
package main

import (
	"context"
	"net/http"
	"slices"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/knowledge/retrieval"
	"github.com/screenagent/backend/shared/ratelimit"
)

func main() {
	required := slices.Concat(app.AuthRequired, []string{config.EnvKnowledgeTable})
	app.Main("GET /api/knowledge/resolve", required, func(_ context.Context, a *app.App) (http.Handler, error) {
		svc, err := retrieval.New(a.Config, a.DynamoDB)
		if err != nil {
			return nil, err
		}
		return a.Protect(ratelimit.ClassResolve, newHandler(svc, a.Accounts()))
	})
}
