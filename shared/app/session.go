package app

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/ratelimit"
)

// SessionMain is the main of a session API function (/api/session...): Main on route, with the
// handler built on the chat store, behind Protect in the session rate-limit class.
func SessionMain(route string, handler func(*chatdb.Store) http.Handler) {
	Main(route, func(_ context.Context, a *App) (http.Handler, error) {
		policy, err := a.Retention()
		if err != nil {
			return nil, err
		}
		return a.Protect(ratelimit.ClassSession, handler(chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable, policy.Chat)))
	})
}
