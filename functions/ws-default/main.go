// Command ws-default serves the WebSocket API's $default route: a message whose action is not a
// route is answered with an error event.
package main

import (
	"context"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/realtimeapp"
)

func main() {
	app.WebSocketMain("$default", func(_ context.Context, a *app.App) (app.WebSocketHandler, error) {
		hub, err := realtimeapp.Hub(a, nil)
		if err != nil {
			return nil, err
		}
		return app.MessageHandler(hub.Handle, a.Logger), nil
	})
}
