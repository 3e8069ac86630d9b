// Command preferences-get serves GET /api/v1/user/preferences.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/ratelimit"
)

func main() {
	app.Main("GET /api/v1/user/preferences", func(_ context.Context, a *app.App) (http.Handler, error) {
		return a.Protect(ratelimit.ClassPreferences, newHandler(a.Accounts()))
	})
}
