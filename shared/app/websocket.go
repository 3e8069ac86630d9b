package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/screenagent/backend/shared/logging"
)

// WebSocketHandler serves one route of the WebSocket API. Its status answers $connect (anything
// but 2xx refuses the upgrade); the message routes answer through PostToConnection instead.
type WebSocketHandler func(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error)

// WebSocketMain is the main of a WebSocket route's function: Main's wiring, with one log line per
// invocation (route, connection, status, duration).
func WebSocketMain(route string, build func(context.Context, *App) (WebSocketHandler, error)) {
	ctx := context.Background()
	a, err := New(ctx)
	var h WebSocketHandler
	if err == nil {
		h, err = build(ctx, a)
	}
	if err != nil {
		logging.New(os.Stderr, slog.LevelInfo).Error("init failed", "route", route, "error", fmt.Sprint(err))
		os.Exit(1)
	}
	lambda.Start(func(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
		start := time.Now()
		res, err := h(ctx, ev)
		level := slog.LevelInfo
		if err != nil || res.StatusCode >= 500 {
			level = slog.LevelError
		}
		a.Logger.Log(ctx, level, "request", "route", route, "connectionId", ev.RequestContext.ConnectionID,
			"requestId", ev.RequestContext.RequestID, "status", res.StatusCode, "durationMs", time.Since(start).Milliseconds())
		return res, err
	})
}

// MessageHandler serves a message route with handle, which answers the client itself; only a
// failure to answer at all is logged and is a 500.
func MessageHandler(handle func(ctx context.Context, connectionID string, body []byte) error, log *slog.Logger) WebSocketHandler {
	return func(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
		if err := handle(ctx, ev.RequestContext.ConnectionID, []byte(ev.Body)); err != nil {
			log.ErrorContext(ctx, "message not answered", "connectionId", ev.RequestContext.ConnectionID, "error", err.Error())
			return events.APIGatewayProxyResponse{StatusCode: 500}, nil
		}
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	}
}
