package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/realtime"
)

type connector interface {
	Connect(ctx context.Context, connectionID, ticket string) (realtime.Owner, error)
}

// newHandler answers 401 for a missing, unknown, used or expired ticket, so API Gateway refuses
// the upgrade with it; a store failure is a 500 that tells nothing more.
func newHandler(hub connector, log *slog.Logger) app.WebSocketHandler {
	return func(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
		_, err := hub.Connect(ctx, ev.RequestContext.ConnectionID, ev.QueryStringParameters["ticket"])
		switch {
		case errors.Is(err, realtime.ErrTicket):
			return events.APIGatewayProxyResponse{StatusCode: http.StatusUnauthorized, Body: "Unauthorized"}, nil
		case err != nil:
			log.ErrorContext(ctx, "connect failed", "connectionId", ev.RequestContext.ConnectionID, "error", err.Error())
			return events.APIGatewayProxyResponse{StatusCode: http.StatusInternalServerError, Body: "Internal Server Error"}, nil
		}
		return events.APIGatewayProxyResponse{StatusCode: http.StatusOK}, nil
	}
}
