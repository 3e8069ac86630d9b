package functions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/knowledgedb"
)

type resolved struct {
	Allowed         bool                 `json:"allowed"`
	Domain          string               `json:"domain"`
	HasOrgKnowledge bool                 `json:"hasOrgKnowledge"`
	Context         []knowledge.Chunk    `json:"context"`
	Citations       []knowledge.Citation `json:"citations"`
	RAGDebug        *knowledge.Debug     `json:"ragDebug"`
}

func resolveURL(base, pageURL, query string, extra ...string) string {
	q := url.Values{"url": {pageURL}}
	if query != "" {
		q.Set("query", query)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return base + "/api/knowledge/resolve?" + q.Encode()
}

// resolve calls GET /api/knowledge/resolve and decodes a 200.
func resolve(t *testing.T, stack *stacktest.Stack, token, pageURL, query string, extra ...string) (resolved, http.Header) {
	t.Helper()
	status, hdr, body := call(t, "GET", resolveURL(stack.URL, pageURL, query, extra...), token, nil)
	if status != 200 {
		t.Fatalf("resolve %s %q = %d %s, want 200", pageURL, query, status, body)
	}
	var r resolved
	if err := json.Unmarshal(decode(t, body).Data, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Allowed || r.Context == nil || r.Citations == nil {
		t.Fatalf("resolve %s = %s, want allowed and context and citations arrays", pageURL, body)
	}
	return r, hdr
}

// knowledgeTenant is a user whose personal tenant has allowed domains and ingested files.
func knowledgeTenant(t *testing.T, stack *stacktest.Stack, email string, patterns []string, domain string, files map[string]string) (accounts.User, string) {
	t.Helper()
	const password = "a long enough passphrase"
	u := createUser(t, stack, email, password)
	ctx := context.Background()
	domains := knowledgedb.NewDomains(stack.DB.Client, stack.DB.Tables["AccountsTable"])
	for _, s := range patterns {
		p, err := knowledge.ParsePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := domains.AddDomain(ctx, u.ID, p); err != nil {
			t.Fatal(err)
		}
	}
	if len(files) > 0 {
		dir := t.TempDir()
		var paths []string
		for name, content := range files {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		d, err := knowledge.ParsePattern(domain)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := provision.ReadDocuments(d, paths)
		if err != nil {
			t.Fatal(err)
		}
		store := knowledgedb.NewDocuments(stack.DB.Client, stack.DB.Tables["KnowledgeTable"])
		for _, doc := range docs {
			if _, err := store.PutDocument(ctx, u.ID, doc); err != nil {
				t.Fatal(err)
			}
		}
	}
	return u, login(t, stack.URL, email, password)
}

var samplePolicy = map[string]string{
	"expense-policy.md": "# Expense Policy\n\nApplies to all staff.\n\n## Submission\n\nTo submit an expense, go to Finance > Submit and attach the receipt.\n\n## Limits\n\nMeals up to 50 euros a day.\n",
	"travel.html":       "<html><head><title>Travel Guide</title><script>var x = 'no';</script></head><body><h1>Travel</h1><p>Book flights through the travel portal.</p></body></html>",
}

// TestKnowledgeResolveOverHTTP is the "done when": after allowing a domain and ingesting a
// small policy, resolve on that domain returns its chunk with hasOrgKnowledge; another domain
// returns false and nothing; another tenant sees nothing.
func TestKnowledgeResolveOverHTTP(t *testing.T) {
	stack := stacktest.New(t, stacktest.Options{Env: map[string]string{"KNOWLEDGE_CACHE_SECONDS": "0"}})
	ada, tokenA := knowledgeTenant(t, stack, "ada@example.com", []string{"app.acme.com", "*.acme.io"}, "app.acme.com", samplePolicy)
	_, tokenB := knowledgeTenant(t, stack, "bob@example.com", []string{"app.acme.com"}, "", nil)

	r, hdr := resolve(t, stack, tokenA, "https://app.acme.com/expenses/new?id=7", "how do I submit an expense")
	if r.Domain != "app.acme.com" || !r.HasOrgKnowledge || len(r.Context) == 0 || !strings.Contains(r.Context[0].Content, "To submit an expense") {
		t.Fatalf("tenant A on its domain = %+v, want the submission chunk first with hasOrgKnowledge", r)
	}
	first := r.Context[0]
	policyID := knowledge.DocumentID("app.acme.com", "expense-policy.md")
	if first.DocumentTitle != "Expense Policy" || first.Metadata["section"] != "Submission" || first.Metadata["documentId"] != policyID {
		t.Errorf("first chunk = %+v, want the policy's Submission section", first)
	}
	if c := r.Citations[0]; c.DocumentID != policyID || c.DocumentTitle != "Expense Policy" || c.Section != "Submission" {
		t.Errorf("first citation = %+v", c)
	}
	if r.RAGDebug != nil {
		t.Errorf("ragDebug = %+v outside debug mode, want none", r.RAGDebug)
	}
	if hdr.Get("X-RateLimit-Limit") != "30" {
		t.Errorf("X-RateLimit-Limit = %q, want 30 (the resolve class)", hdr.Get("X-RateLimit-Limit"))
	}

	// HTML is ingested as text: the travel page, without its script.
	r, _ = resolve(t, stack, tokenA, "https://app.acme.com/", "flights portal")
	if len(r.Context) == 0 || r.Context[0].DocumentTitle != "Travel Guide" || strings.Contains(r.Context[0].Content, "var x") {
		t.Errorf("travel query = %+v, want the HTML page's text", r.Context)
	}

	// allowed, but no knowledge stored for it
	if r, _ := resolve(t, stack, tokenA, "https://docs.acme.io/", "expense"); r.HasOrgKnowledge || len(r.Context) != 0 || r.Domain != "docs.acme.io" {
		t.Errorf("allowed domain without knowledge = %+v, want hasOrgKnowledge false and no context", r)
	}
	// not allowed: public-only, never 403
	if r, _ := resolve(t, stack, tokenA, "https://www.example.org/", "expense"); r.HasOrgKnowledge || len(r.Context) != 0 || len(r.Citations) != 0 {
		t.Errorf("other domain = %+v, want hasOrgKnowledge false and nothing", r)
	}
	// another tenant with the same domain allowed sees nothing of tenant A's
	if r, _ := resolve(t, stack, tokenB, "https://app.acme.com/expenses/new", "expense"); r.HasOrgKnowledge || len(r.Context) != 0 {
		t.Errorf("tenant B = %+v, want nothing", r)
	}

	// debug mode: asked for and switched on in the user's preferences
	if r, _ := resolve(t, stack, tokenA, "https://app.acme.com/", "expense", "debug", "true"); r.RAGDebug != nil {
		t.Errorf("debug=true without debugMode: ragDebug %+v, want none", r.RAGDebug)
	}
	prefs := accounts.DefaultPreferences()
	prefs.DebugMode = true
	if status, _, body := call(t, "POST", stack.URL+"/api/v1/user/preferences", tokenA, prefs); status != 200 {
		t.Fatalf("save preferences = %d %s", status, body)
	}
	r, _ = resolve(t, stack, tokenA, "https://app.acme.com/", "expense", "debug", "true")
	if d := r.RAGDebug; d == nil || !d.DomainMatched || d.MatchedPattern != "app.acme.com" || d.Source != "builtin" || d.ChunkCount != len(r.Context) || d.Considered < 3 {
		t.Errorf("ragDebug = %+v, want the domain match, builtin source and counts", d)
	}
	if r, _ := resolve(t, stack, tokenA, "https://app.acme.com/", "expense"); r.RAGDebug != nil {
		t.Errorf("debugMode on but debug not asked for: ragDebug %+v, want none", r.RAGDebug)
	}

	// errors
	tests := []struct {
		name, url, token string
		status           int
		code, field      string
	}{
		{"missing url", stack.URL + "/api/knowledge/resolve", tokenA, 400, "VALIDATION_ERROR", "url"},
		{"relative url", resolveURL(stack.URL, "/expenses", ""), tokenA, 400, "VALIDATION_ERROR", "url"},
		{"not http", resolveURL(stack.URL, "ftp://app.acme.com/", ""), tokenA, 400, "VALIDATION_ERROR", "url"},
		{"bad debug", resolveURL(stack.URL, "https://app.acme.com/", "", "debug", "yes"), tokenA, 400, "VALIDATION_ERROR", "debug"},
		{"no token", resolveURL(stack.URL, "https://app.acme.com/", ""), "", 401, "UNAUTHORIZED", ""},
		{"bad token", resolveURL(stack.URL, "https://app.acme.com/", ""), "sa_bogus", 401, "UNAUTHORIZED", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := call(t, "GET", tt.url, tt.token, nil)
			e := decode(t, body)
			if status != tt.status || e.Success || e.Code != tt.code || tt.field != "" && e.Details["field"] != tt.field {
				t.Errorf("got %d %s, want %d %s on %q", status, body, tt.status, tt.code, tt.field)
			}
		})
	}

	t.Run("extraction contract route", func(t *testing.T) {
		testExtractionRoute(t, stack, ada.ID)
	})
}

// signedGet sends a GET signed with SigV4 (any credentials pass locally) and extra headers.
func signedGet(t *testing.T, rawURL string, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	const emptyBodySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	creds := aws.Credentials{AccessKeyID: "AKIDLOCALTEST", SecretAccessKey: "local"}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, emptyBodySHA256, "execute-api", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

func testExtractionRoute(t *testing.T, stack *stacktest.Stack, tenantA string) {
	base := stack.URL + "/internal/api/knowledge/resolve?"
	page := url.Values{"url": {"https://app.acme.com/x"}, "query": {"submit expense"}}.Encode()

	// Without IAM credentials API Gateway (and the emulator) refuses before the function runs.
	status, _, body := call(t, "GET", base+page, "", nil)
	if status != 403 || strings.TrimSpace(string(body)) != `{"message":"Forbidden"}` {
		t.Errorf("unsigned = %d %s, want 403 Forbidden", status, body)
	}

	status, body = signedGet(t, base+page, map[string]string{"X-Tenant-ID": tenantA})
	var res struct {
		Context   []knowledge.Chunk    `json:"context"`
		Citations []knowledge.Citation `json:"citations"`
		Success   *bool                `json:"success"`
	}
	if err := json.Unmarshal(body, &res); err != nil || status != 200 || res.Success != nil {
		t.Fatalf("signed = %d %s, want 200 with the contract's bare body", status, body)
	}
	if len(res.Context) == 0 || !strings.Contains(res.Context[0].Content, "To submit an expense") || len(res.Citations) == 0 {
		t.Errorf("signed with tenant A = %s, want the submission chunk and citations", body)
	}

	tests := []struct {
		name   string
		query  string
		tenant string
		status int
		body   string
	}{
		{"other tenant", page, "someone-else", 200, `{"context":[],"citations":[]}`},
		{"host without knowledge", url.Values{"url": {"https://www.example.org/"}}.Encode(), tenantA, 200, `{"context":[],"citations":[]}`},
		{"missing tenant", page, "", 401, `{"error":"Unauthorized","detail":"X-Tenant-ID header is required"}`},
		{"invalid tenant", page, "a#b", 401, `{"error":"Unauthorized","detail":"X-Tenant-ID must be 1 to 128 letters, digits or -_.:@"}`},
		{"missing url", "", tenantA, 400, `{"error":"Invalid url","detail":"url is required"}`},
		{"invalid url", url.Values{"url": {"not a url"}}.Encode(), tenantA, 400, `{"error":"Invalid url","detail":"url must be an absolute http(s) URL"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.tenant != "" {
				h["X-Tenant-ID"] = tt.tenant
			}
			status, body := signedGet(t, base+tt.query, h)
			if status != tt.status || string(body) != tt.body {
				t.Errorf("got %d %s, want %d %s", status, body, tt.status, tt.body)
			}
		})
	}
}

// TestKnowledgeResolveThroughExtractionService runs resolve with KNOWLEDGE_SERVICE_URL set: the
// route proxies allowed domains to the service with X-Tenant-ID, and a failing service is a
// 500 INTERNAL_ERROR.
func TestKnowledgeResolveThroughExtractionService(t *testing.T) {
	var (
		mu      sync.Mutex
		tenants []string
		failing bool
	)
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(tenants)
	}
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/kb/api/knowledge/resolve" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		tenants = append(tenants, r.Header.Get("X-Tenant-ID"))
		fail := failing
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":"RAG down","detail":"try later"}`))
			return
		}
		_, _ = w.Write([]byte(`{"context":[{"id":"c1","content":"From the service about ` + r.URL.Query().Get("query") +
			`","documentTitle":"Remote"}],"citations":[{"documentId":"d1","documentTitle":"Remote","page":3}]}`))
	}))
	defer svc.Close()
	stack := stacktest.New(t, stacktest.Options{Env: map[string]string{"KNOWLEDGE_SERVICE_URL": svc.URL + "/kb", "KNOWLEDGE_CACHE_SECONDS": "0"}})
	ada, token := knowledgeTenant(t, stack, "ada@example.com", []string{"*.acme.com"}, "", nil)

	r, _ := resolve(t, stack, token, "https://app.acme.com/", "refunds")
	if !r.HasOrgKnowledge || len(r.Context) != 1 || r.Context[0].Content != "From the service about refunds" || r.Citations[0].Page != 3 {
		t.Errorf("through the service = %+v, want its chunk and citation", r)
	}
	if got := seen(); len(got) != 1 || got[0] != ada.ID {
		t.Errorf("the service saw tenants %v, want [%s]", got, ada.ID)
	}
	if r, _ := resolve(t, stack, token, "https://example.org/", "refunds"); r.HasOrgKnowledge || len(seen()) != 1 {
		t.Errorf("domain not allowed = %+v with %d service calls, want public-only and no call", r, len(seen()))
	}
	mu.Lock()
	failing = true
	mu.Unlock()
	status, _, body := call(t, "GET", resolveURL(stack.URL, "https://app.acme.com/", "refunds"), token, nil)
	if e := decode(t, body); status != 500 || e.Code != "INTERNAL_ERROR" || strings.Contains(string(body), "RAG down") {
		t.Errorf("failing service = %d %s, want 500 INTERNAL_ERROR without the service's words", status, body)
	}
}
