// Command extraction-resolve serves GET /internal/api/knowledge/resolve: the knowledge-extraction
// service contract (BROWSER_AUTOMATION_RESOLVE_SCHEMA.md) over the built-in store, so other
// deployments can use this one as their extraction service with
// KNOWLEDGE_SERVICE_URL=<this API's URL>/internal. API Gateway admits only callers with AWS IAM
// (SigV4) credentials allowed to invoke the route.
package main

import (
	"context"
	"net/http"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/knowledgedb"
)

func main() {
	app.Main("GET /internal/api/knowledge/resolve", func(_ context.Context, a *app.App) (http.Handler, error) {
		source := knowledge.BuiltIn{Store: knowledgedb.NewDocuments(a.DynamoDB, a.Config.KnowledgeTable)}
		return newHandler(source, iamCaller), nil
	})
}

// iamCaller reports whether API Gateway authorized the request with IAM. The route requires
// it, so a request without it means the route was deployed without its authorizer: refusing
// keeps tenant knowledge closed even then.
func iamCaller(r *http.Request) bool {
	gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	return ok && gw.Authorizer != nil && gw.Authorizer.IAM != nil && gw.Authorizer.IAM.AccessKey != ""
}
