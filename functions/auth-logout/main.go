// Command auth-logout serves POST /api/v1/auth/logout.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
)

func main() {
	app.Main("POST /api/v1/auth/logout", func(_ context.Context, a *app.App) (http.Handler, error) {
		svc, err := a.Auth()
		if err != nil {
			return nil, err
		}
		// Not rate limited: logging out must always work.
		return a.Protect("", newHandler(svc))
	})
}
