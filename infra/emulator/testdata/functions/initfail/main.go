// Command initfail fails its init until the file named by INIT_MARKER exists. With
// INIT_POST_ERROR=1 it first reports the failure to the Runtime API's /init/error, as custom
// runtimes do; otherwise it just exits, as a Go function whose main calls log.Fatal does.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	if _, err := os.Stat(os.Getenv("INIT_MARKER")); err != nil {
		fmt.Fprintln(os.Stderr, "initfail: marker missing:", err)
		if os.Getenv("INIT_POST_ERROR") == "1" {
			postInitError(err)
		}
		os.Exit(1)
	}
	lambda.Start(func(events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: "ready"}, nil
	})
}

func postInitError(cause error) {
	body, _ := json.Marshal(map[string]string{"errorType": "Function.MarkerMissing", "errorMessage": cause.Error()})
	url := "http://" + os.Getenv("AWS_LAMBDA_RUNTIME_API") + "/2018-06-01/runtime/init/error"
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, "initfail: post init error:", err)
		return
	}
	resp.Body.Close()
}
