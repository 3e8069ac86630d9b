// Command echo answers with the event exactly as it arrived, so tests see what the emulator sent.
// Query parameters steer it: sleep=<ms> delays the answer, mode=raw sends the request body back
// as binary, mode=plain returns JSON without a statusCode.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(ctx context.Context, raw json.RawMessage) (any, error) {
	var req events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, err
	}
	q := req.QueryStringParameters
	if ms, err := strconv.Atoi(q["sleep"]); err == nil {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	switch q["mode"] {
	case "raw":
		body := req.Body
		if !req.IsBase64Encoded {
			body = base64.StdEncoding.EncodeToString([]byte(body))
		}
		return events.APIGatewayV2HTTPResponse{
			StatusCode:      200,
			Headers:         map[string]string{"Content-Type": "application/octet-stream"},
			Body:            body,
			IsBase64Encoded: true,
		}, nil
	case "plain":
		return map[string]string{"hello": "world"}, nil
	}
	return events.APIGatewayV2HTTPResponse{
		StatusCode: 200,
		Headers: map[string]string{
			"Content-Type": "application/json",
			"X-Pid":        strconv.Itoa(os.Getpid()),
			// HTTP API ignores CORS headers from functions; the emulator must too.
			"Access-Control-Allow-Origin": "https://evil.example",
		},
		MultiValueHeaders: map[string][]string{"X-Multi": {"a", "b"}},
		Cookies:           []string{"session=abc; Path=/", "theme=dark"},
		Body:              string(raw),
	}, nil
}

func main() {
	lambda.Start(handle)
}
