// Command auth-session serves GET /api/v1/auth/session.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/ratelimit"
)

func main() {
	app.Main("GET /api/v1/auth/session", func(_ context.Context, a *app.App) (http.Handler, error) {
		return a.Protect(ratelimit.ClassAuthSession, newHandler())
	})
}
