package openapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/openapi"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/sam"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func template(t *testing.T) *sam.Template {
	t.Helper()
	root, err := ddblocal.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := sam.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func TestDocumentIsOpenAPI31(t *testing.T) {
	doc := load(t)
	if !doc.IsOpenAPI31OrLater() || doc.IsOpenAPI32OrLater() {
		t.Errorf("got openapi %q, want 3.1.x", doc.OpenAPI)
	}
}

// The document and template.yaml name the same routes: a route added to one only fails here.
func TestRoutesMatchTemplate(t *testing.T) {
	doc, tmpl := load(t), template(t)
	var inTemplate, inDoc []string
	for _, r := range tmpl.Routes() {
		inTemplate = append(inTemplate, r.Method+" "+r.Path)
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			inDoc = append(inDoc, method+" "+path)
		}
	}
	for _, r := range inTemplate {
		if !slices.Contains(inDoc, r) {
			t.Errorf("template.yaml route %s is missing from infra/openapi/openapi.yaml", r)
		}
	}
	for _, r := range inDoc {
		if !slices.Contains(inTemplate, r) {
			t.Errorf("infra/openapi/openapi.yaml documents %s, which template.yaml does not route", r)
		}
	}
}

// infra/api.http has a request for every route of the template.
func TestHTTPFileCoversEveryRoute(t *testing.T) {
	root, err := ddblocal.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "infra", "api.http"))
	if err != nil {
		t.Fatal(err)
	}
	request := regexp.MustCompile(`(?m)^(GET|POST) \{\{base\}\}([^?\s]*)`)
	var covered []string
	for _, m := range request.FindAllStringSubmatch(string(b), -1) {
		// {{runId}} stands for the template's {runId}.
		covered = append(covered, m[1]+" "+strings.NewReplacer("{{", "{", "}}", "}").Replace(m[2]))
	}
	for _, r := range template(t).Routes() {
		if route := r.Method + " " + r.Path; !slices.Contains(covered, route) {
			t.Errorf("infra/api.http has no request for %s", route)
		}
	}
}

// openRoutes are the routes without Bearer authentication (specs README, "Authentication").
var openRoutes = []string{"POST /api/v1/auth/login", "GET /api/health", "GET /health"}

// Each operation's security is the template's: SigV4 where the route asks for AWS_IAM, none on
// the open routes, the bearer token everywhere else.
func TestSecurityMatchesTemplate(t *testing.T) {
	doc, tmpl := load(t), template(t)
	iam := map[string]bool{}
	for _, f := range tmpl.Functions() {
		for _, e := range f.Events {
			if auth, ok := e.Properties["Auth"].(map[string]any); ok && auth["Authorizer"] == "AWS_IAM" {
				iam[fmt.Sprint(e.Properties["Method"])+" "+fmt.Sprint(e.Properties["Path"])] = true
			}
		}
	}
	if len(iam) == 0 {
		t.Fatal("template.yaml has no AWS_IAM route; the internal resolve route should be one")
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			route := method + " " + path
			want := "bearerAuth"
			switch {
			case iam[route]:
				want = "awsIam"
			case slices.Contains(openRoutes, route):
				want = "none"
			}
			if got := securityOf(doc, op); got != want {
				t.Errorf("%s: security %s, want %s", route, got, want)
			}
		}
	}
}

func securityOf(doc *openapi3.T, op *openapi3.Operation) string {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	var names []string
	for _, req := range reqs {
		for name := range req {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// Every error code of shared/httpapi is allowed exactly at its status, and every status schema
// allows only codes of that status.
func TestEveryErrorCodeAtItsStatus(t *testing.T) {
	doc := load(t)
	byStatus := map[int][]string{}
	for _, c := range httpapi.Codes() {
		byStatus[c.Status()] = append(byStatus[c.Status()], string(c))
	}
	for status, codes := range byStatus {
		ref := doc.Components.Schemas["Code"+strconv.Itoa(status)]
		if ref == nil {
			t.Errorf("no schema Code%d for %v", status, codes)
			continue
		}
		var documented []string
		for _, v := range ref.Value.Enum {
			documented = append(documented, fmt.Sprint(v))
		}
		slices.Sort(codes)
		slices.Sort(documented)
		if !slices.Equal(codes, documented) {
			t.Errorf("Code%d = %v, want %v", status, documented, codes)
		}
		if !strings.Contains(doc.Info.Description, fmt.Sprintf("| %d |", status)) {
			t.Errorf("the description's table of codes lacks status %d", status)
		}
	}
}

func TestCheckResponse(t *testing.T) {
	v, err := openapi.NewValidator(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const login = `{"success":true,"data":{"accessToken":"sa_at_x","expiresAt":"2026-01-01T00:00:00Z","user":{"id":"u","email":"a@b.c","name":"A"},"tenantId":"t","tenantName":"T"}}`
	const interact = `{"success":true,"data":{"thought":"t","action":"click(2)","taskId":"7c1e0a52-3f1b-4a0e-9d59-1c2f0f5e8b33","sessionId":"2b5f3c8e-1d6a-4f0b-8e2c-9a7d6b5c4e31","hasOrgKnowledge":false,"status":"active","currentStep":1,"metrics":{"durationMs":1,"llmLatencyMs":1,"llmAttempts":1,"promptTokens":1,"completionTokens":1,"stepCount":1,"maxSteps":50}%s}}`
	const jsonCT = "application/json; charset=utf-8"
	cases := []struct {
		name, method, path string
		status             int
		contentType, body  string
		header             map[string]string
		wantErr            string
	}{
		{"login", "POST", "/api/v1/auth/login", 200, jsonCT, login, nil, ""},
		{"login without token", "POST", "/api/v1/auth/login", 200, jsonCT, strings.Replace(login, `"accessToken":"sa_at_x",`, "", 1), nil, "accessToken"},
		{"undocumented status", "POST", "/api/v1/auth/login", 418, jsonCT, `{}`, nil, "status is not supported"},
		{"wrong content type", "GET", "/api/v1/auth/session", 401, "text/plain", `Unauthorized`, nil, "Content-Type"},
		{"code of another status", "GET", "/api/v1/auth/session", 401, jsonCT, `{"success":false,"code":"VALIDATION_ERROR","message":"m"}`, nil, "must be one of"},
		{"error envelope", "GET", "/api/v1/auth/session", 401, jsonCT, `{"success":false,"code":"UNAUTHORIZED","message":"Authentication required."}`, nil, ""},
		{"429 without Retry-After", "GET", "/api/session", 429, jsonCT, `{"success":false,"code":"RATE_LIMIT","message":"m","retryAfter":3}`, nil, "Retry-After"},
		{"429", "GET", "/api/session", 429, jsonCT, `{"success":false,"code":"RATE_LIMIT","message":"m","retryAfter":3}`, map[string]string{"Retry-After": "3"}, ""},
		{"interact", "POST", "/api/agent/interact", 200, jsonCT, fmt.Sprintf(interact, ""), nil, ""},
		{"interact with a field added later", "POST", "/api/agent/interact", 200, jsonCT, fmt.Sprintf(interact, `,"plan":{"steps":[]}`), nil, ""},
		{"interact without an action", "POST", "/api/agent/interact", 200, jsonCT, strings.Replace(fmt.Sprintf(interact, ""), `"action":"click(2)",`, "", 1), nil, "action"},
		{"run error body", "GET", "/agent/run/9f0c2a9e-1b5d-4c3e-8a7f-6d5e4c3b2a10", 404, jsonCT, `{"error":"NOT_FOUND","message":"Run not found or expired."}`, nil, ""},
		{"envelope on the run API", "GET", "/agent/run/9f0c2a9e-1b5d-4c3e-8a7f-6d5e4c3b2a10", 404, jsonCT, `{"success":false,"code":"NOT_FOUND","message":"m"}`, nil, "error"},
		{"logout", "POST", "/api/v1/auth/logout", 204, "", ``, nil, ""},
		{"unsigned internal call", "GET", "/internal/api/knowledge/resolve?url=https%3A%2F%2Fa.example%2F", 403, "application/json", `{"message":"Forbidden"}`, nil, ""},
		{"unknown route", "GET", "/nope", 404, "application/json", `{"message":"Not Found"}`, nil, ""},
		{"unknown route answered", "GET", "/nope", 200, "application/json", `{}`, nil, "no route of the contract"},
		{"preflight", "OPTIONS", "/api/agent/interact", 204, "", ``, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://127.0.0.1:3000"+tc.path, nil)
			h := http.Header{}
			if tc.contentType != "" {
				h.Set("Content-Type", tc.contentType)
			}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			err := v.CheckResponse(context.Background(), req, tc.status, h, []byte(tc.body))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("got %v, want an error mentioning %q", err, tc.wantErr)
			}
		})
	}
}
