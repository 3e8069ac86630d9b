// Command ws-disconnect serves the WebSocket API's $disconnect: the connection's records are
// removed and its subscriptions linger for the resume window.
package main

import (
	"context"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/realtimeapp"
)

func main() {
	app.WebSocketMain("$disconnect", func(_ context.Context, a *app.App) (app.WebSocketHandler, error) {
		hub, err := realtimeapp.Hub(a, nil)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
			if err := hub.Disconnect(ctx, ev.RequestContext.ConnectionID); err != nil {
				a.Logger.ErrorContext(ctx, "disconnect failed", "connectionId", ev.RequestContext.ConnectionID, "error", err.Error())
				return events.APIGatewayProxyResponse{StatusCode: http.StatusInternalServerError}, nil
			}
			return events.APIGatewayProxyResponse{StatusCode: http.StatusOK}, nil
		}, nil
	})
}
