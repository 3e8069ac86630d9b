// Command ws-subscribe serves the WebSocket API's subscribe route:
// {"action":"subscribe","sessionId":"…"} or runId, with an optional since to resume.
package main

import (
	"context"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/realtimeapp"
	"github.com/screenagent/backend/shared/runs/runapi"
)

func main() {
	app.WebSocketMain("subscribe", func(_ context.Context, a *app.App) (app.WebSocketHandler, error) {
		policy, err := a.Retention()
		if err != nil {
			return nil, err
		}
		runStore, err := runapi.NewStore(a)
		if err != nil {
			return nil, err
		}
		access := owners{
			sessions: chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable, policy.Chat),
			runs:     runStore,
		}
		hub, err := realtimeapp.Hub(a, access)
		if err != nil {
			return nil, err
		}
		return app.MessageHandler(hub.Handle, a.Logger), nil
	})
}
