// Package extraction is the knowledge-extraction service contract
// (BROWSER_AUTOMATION_RESOLVE_SCHEMA.md): GET {base}/api/knowledge/resolve?url=…&query=… with
// an X-Tenant-ID header, answering {context, citations} or {error, detail}. Client calls such a
// service as a knowledge.Source; the wire types serve this deployment's own implementation of
// the contract too.
package extraction

import "github.com/screenagent/backend/shared/knowledge"

// Path is the contract's path, relative to a service's base URL.
const Path = "/api/knowledge/resolve"

// TenantHeader carries the tenant every retrieval is scoped by.
const TenantHeader = "X-Tenant-ID"

// Response is the contract's 200 body. Context and Citations encode as arrays, never null.
type Response struct {
	Context   []knowledge.Chunk    `json:"context"`
	Citations []knowledge.Citation `json:"citations"`
}

// ErrorBody is the contract's body of a 400, 401 or 500.
type ErrorBody struct {
	Error  string `json:"error"`
	Detail string `json:"detail"`
}
