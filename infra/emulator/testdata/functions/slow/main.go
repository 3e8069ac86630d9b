// Command slow sleeps ms milliseconds (default 10 s) before answering, to run past its timeout;
// it prints a line as it starts, which tests wait for.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	ms, err := strconv.Atoi(req.QueryStringParameters["ms"])
	if err != nil {
		ms = 10000
	}
	fmt.Println("slow: invocation started") // tests wait for this line
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return events.APIGatewayV2HTTPResponse{
		StatusCode: 200,
		Headers:    map[string]string{"X-Pid": strconv.Itoa(os.Getpid())},
		Body:       "done",
	}, nil
}

func main() {
	lambda.Start(handle)
}
