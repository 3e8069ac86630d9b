// Command session-latest serves GET /api/session/latest: the user's most recently updated session.
package main

import (
	"context"
	"net/http"
	"slices"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/ratelimit"
)

func main() {
	required := slices.Concat(app.AuthRequired, []string{config.EnvSessionsTable})
	app.Main("GET /api/session/latest", required, func(_ context.Context, a *app.App) (http.Handler, error) {
		return a.Protect(ratelimit.ClassSession, newHandler(chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable)))
	})
}
