// Command session-messages serves GET /api/session/{sessionId}/messages: a session's messages.
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

// route is the function's event in template.yaml; the handler reads its path parameter.
const route = "GET /api/session/{sessionId}/messages"

func main() {
	required := slices.Concat(app.AuthRequired, []string{config.EnvSessionsTable, config.EnvMessagesTable})
	app.Main(route, required, func(_ context.Context, a *app.App) (http.Handler, error) {
		return a.Protect(ratelimit.ClassSession, newHandler(chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable)))
	})
}
