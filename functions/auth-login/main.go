// Command auth-login serves POST /api/v1/auth/login.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
)

func main() {
	app.Main("POST /api/v1/auth/login", func(_ context.Context, a *app.App) (http.Handler, error) {
		svc, err := a.Auth()
		if err != nil {
			return nil, err
		}
		return newHandler(svc), nil
	})
}
