// Package lambdahttp serves a net/http handler as a Lambda function behind an API Gateway HTTP
// API (payload format 2.0), so handlers are plain net/http and testable without Lambda.
package lambdahttp

import (
	"net/http"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// Start blocks serving h for Lambda invocations.
func Start(h http.Handler) {
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
