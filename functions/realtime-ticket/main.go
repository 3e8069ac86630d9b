// Command realtime-ticket serves POST /api/realtime/ticket: a single-use ticket, valid 60 seconds,
// with which the WebSocket API's $connect admits the caller.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/ratelimit"
	"github.com/screenagent/backend/shared/realtimeapp"
)

// route is the function's event in template.yaml.
const route = "POST /api/realtime/ticket"

func main() {
	app.Main(route, func(_ context.Context, a *app.App) (http.Handler, error) {
		hub, err := realtimeapp.Hub(a, nil)
		if err != nil {
			return nil, err
		}
		return a.Protect(ratelimit.ClassSession, newHandler(hub))
	})
}
