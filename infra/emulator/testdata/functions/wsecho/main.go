// Command wsecho serves every route of the test WebSocket API: $connect refuses a connection
// whose query has deny=<status>; a message is posted back to its connection through the
// management endpoint (WS_ENDPOINT), as {"route":…,"body":…,"connectionId":…}, or to the
// connection named by the body's "to" (so tests see the 410 of a gone one).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
	rc := ev.RequestContext
	switch rc.EventType {
	case "CONNECT":
		if s, err := strconv.Atoi(ev.QueryStringParameters["deny"]); err == nil {
			return events.APIGatewayProxyResponse{StatusCode: s, Body: "denied"}, nil
		}
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	case "DISCONNECT":
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	}
	var in struct {
		To string `json:"to"`
	}
	json.Unmarshal([]byte(ev.Body), &in)
	to := rc.ConnectionID
	if in.To != "" {
		to = in.To
	}
	echo, _ := json.Marshal(map[string]string{"route": rc.RouteKey, "body": ev.Body, "connectionId": rc.ConnectionID, "eventType": rc.EventType})
	status, err := post(ctx, to, echo)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if status != http.StatusOK {
		// Tell the sender what the post to another connection answered.
		report, _ := json.Marshal(map[string]any{"postStatus": status})
		post(ctx, rc.ConnectionID, report)
	}
	return events.APIGatewayProxyResponse{StatusCode: 200}, nil
}

func post(ctx context.Context, connectionID string, data []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, os.Getenv("WS_ENDPOINT")+"/@connections/"+connectionID, bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature=abc")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post: %w", err)
	}
	res.Body.Close()
	return res.StatusCode, nil
}

func main() {
	lambda.Start(handle)
}
