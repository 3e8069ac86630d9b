// Command fail returns an error, or panics with mode=panic, or answers 200 with mode=ok.
package main

import (
	"errors"
	"os"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	switch req.QueryStringParameters["mode"] {
	case "panic":
		panic("fail: panic on purpose")
	case "ok":
		return events.APIGatewayV2HTTPResponse{
			StatusCode: 200,
			Headers:    map[string]string{"X-Pid": strconv.Itoa(os.Getpid())},
			Body:       "ok",
		}, nil
	}
	return events.APIGatewayV2HTTPResponse{}, errors.New("fail: error on purpose")
}

func main() {
	lambda.Start(handle)
}
