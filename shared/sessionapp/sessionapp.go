// Package sessionapp wires the session API functions (/api/session...). It is apart from app so
// that functions which keep no conversations do not link the chat store.
package sessionapp

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/ratelimit"
)

// Main is the main of a session API function: app.Main on route, with the
// handler built on the chat store, behind Protect in the session rate-limit class.
func Main(route string, handler func(*chatdb.Store) http.Handler) {
	app.Main(route, func(_ context.Context, a *app.App) (http.Handler, error) {
		policy, err := a.Retention()
		if err != nil {
			return nil, err
		}
		return a.Protect(ratelimit.ClassSession, handler(chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable, policy.Chat)))
	})
}
