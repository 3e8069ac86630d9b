// Command ws-connect serves the WebSocket API's $connect: it admits a connection that brings a
// valid single-use ticket (?ticket=) and refuses any other before the upgrade.
package main

import (
	"context"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/realtimeapp"
)

func main() {
	app.WebSocketMain("$connect", func(_ context.Context, a *app.App) (app.WebSocketHandler, error) {
		hub, err := realtimeapp.Hub(a, nil)
		if err != nil {
			return nil, err
		}
		return newHandler(hub, a.Logger), nil
	})
}
