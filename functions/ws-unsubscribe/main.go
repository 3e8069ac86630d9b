// Command ws-unsubscribe serves the WebSocket API's unsubscribe route:
// {"action":"unsubscribe","sessionId":"…"} or runId.
package main

import (
	"context"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/realtimeapp"
)

func main() {
	app.WebSocketMain("unsubscribe", func(_ context.Context, a *app.App) (app.WebSocketHandler, error) {
		hub, err := realtimeapp.Hub(a, nil)
		if err != nil {
			return nil, err
		}
		return app.MessageHandler(hub.Handle, a.Logger), nil
	})
}
