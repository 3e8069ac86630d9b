package knowledge_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/extraction"
	"github.com/screenagent/backend/shared/knowledge/knowledgedb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// counting wraps a Source to count its lookups.
type counting struct {
	knowledge.Source
	calls atomic.Int32
}

func (c *counting) Retrieve(ctx context.Context, r knowledge.Request) (knowledge.Retrieval, error) {
	c.calls.Add(1)
	return c.Source.Retrieve(ctx, r)
}

type fixture struct {
	domains *knowledgedb.Domains
	docs    *knowledgedb.Documents
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	db := dynamotest.New(t)
	return fixture{
		domains: knowledgedb.NewDomains(db.Client, db.Tables["AccountsTable"]),
		docs:    knowledgedb.NewDocuments(db.Client, db.Tables["KnowledgeTable"]),
	}
}

func (f fixture) allow(t *testing.T, tenantID string, patterns ...string) {
	t.Helper()
	for _, s := range patterns {
		p, err := knowledge.ParsePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.domains.AddDomain(context.Background(), tenantID, p); err != nil {
			t.Fatal(err)
		}
	}
}

func (f fixture) ingest(t *testing.T, tenantID, domain, source, title string, chunks ...knowledge.DocChunk) {
	t.Helper()
	for i := range chunks {
		chunks[i].Position = i + 1
	}
	d := knowledge.Document{ID: knowledge.DocumentID(domain, source), Domain: domain, Title: title, Source: source, Format: "markdown", Chunks: chunks}
	if _, err := f.docs.PutDocument(context.Background(), tenantID, d); err != nil {
		t.Fatal(err)
	}
}

func ids(chunks []knowledge.Chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Content
	}
	return out
}

func TestResolveBuiltIn(t *testing.T) {
	f := newFixture(t)
	f.allow(t, "tenant-a", "app.acme.com", "*.shop.acme.com")
	f.allow(t, "tenant-b", "app.acme.com")
	f.ingest(t, "tenant-a", "app.acme.com", "expenses.md", "Expense Policy",
		knowledge.DocChunk{Section: "Submission", Content: "To submit an expense, go to Finance > Submit."},
		knowledge.DocChunk{Section: "Limits", Content: "Meals up to 50 euros a day.", Page: 2},
	)
	f.ingest(t, "tenant-a", "*.acme.com", "handbook.md", "Handbook",
		knowledge.DocChunk{Section: "Office", Content: "The office opens at nine."},
	)
	f.ingest(t, "tenant-a", "intranet.acme.com", "secret.md", "Not allowed", knowledge.DocChunk{Content: "never shown"})
	src := &counting{Source: knowledge.BuiltIn{Store: f.docs}}
	svc := knowledge.NewService(f.domains, src, 0)
	ctx := context.Background()

	t.Run("allowed domain with a query", func(t *testing.T) {
		res, err := svc.Resolve(ctx, "tenant-a", "https://APP.acme.com:443/expenses/new", "how do I submit an expense")
		if err != nil {
			t.Fatal(err)
		}
		// The submission chunk says "submit" and "expense"; the limits chunk only shares the
		// document's title, "Expense Policy"; the handbook matches nothing.
		want := []string{"To submit an expense, go to Finance > Submit.", "Meals up to 50 euros a day."}
		if res.Domain != "app.acme.com" || !res.HasOrgKnowledge || !slices.Equal(ids(res.Chunks), want) {
			t.Fatalf("got domain %q hasOrgKnowledge %v chunks %q, want app.acme.com, true and %q", res.Domain, res.HasOrgKnowledge, ids(res.Chunks), want)
		}
		c := res.Chunks[0]
		id := knowledge.DocumentID("app.acme.com", "expenses.md")
		if c.ID != id+"_c1" || c.DocumentTitle != "Expense Policy" || c.Metadata["section"] != "Submission" || c.Metadata["documentId"] != id {
			t.Errorf("chunk = %+v, want its ID, title and metadata", c)
		}
		cites := []knowledge.Citation{
			{DocumentID: id, DocumentTitle: "Expense Policy", Section: "Submission"},
			{DocumentID: id, DocumentTitle: "Expense Policy", Section: "Limits", Page: 2},
		}
		if !slices.Equal(res.Citations, cites) {
			t.Errorf("citations = %+v, want %+v", res.Citations, cites)
		}
		d := res.Debug
		if !d.DomainMatched || d.MatchedPattern != "app.acme.com" || d.Source != "builtin" || d.ChunkCount != 2 || d.Considered != 3 || d.Cached {
			t.Errorf("debug = %+v, want matched app.acme.com, builtin, 2 of 3 chunks", d)
		}
	})

	t.Run("allowed domain without a query returns the first chunks, wildcard knowledge included", func(t *testing.T) {
		res, err := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/", "")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"To submit an expense, go to Finance > Submit.", "Meals up to 50 euros a day.", "The office opens at nine."}
		if !res.HasOrgKnowledge || !slices.Equal(ids(res.Chunks), want) || len(res.Citations) != 3 || res.Citations[1].Page != 2 {
			t.Errorf("got %v %q citations %+v, want true, %q and a citation per section", res.HasOrgKnowledge, ids(res.Chunks), res.Citations, want)
		}
	})

	t.Run("a query matching nothing still has org knowledge", func(t *testing.T) {
		res, err := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/", "parking garage")
		if err != nil || !res.HasOrgKnowledge || len(res.Chunks) != 0 || res.Chunks == nil || res.Citations == nil {
			t.Errorf("got %+v, %v; want hasOrgKnowledge and empty (not nil) chunks and citations", res, err)
		}
	})

	t.Run("domain not allowed is public-only without an org lookup", func(t *testing.T) {
		before := src.calls.Load()
		for _, u := range []string{"https://intranet.acme.com/", "https://acme.com/", "https://example.org/", "https://shop.acme.com/"} {
			res, err := svc.Resolve(ctx, "tenant-a", u, "expense")
			if err != nil {
				t.Fatal(err)
			}
			if res.HasOrgKnowledge || len(res.Chunks) != 0 || len(res.Citations) != 0 || res.Debug.DomainMatched || res.Debug.Source != "none" {
				t.Errorf("%s: got %+v, want public-only", u, res)
			}
		}
		if n := src.calls.Load() - before; n != 0 {
			t.Errorf("the source was asked %d times for domains that are not allowed, want 0", n)
		}
	})

	t.Run("knowledge of a parent wildcard through a wildcard pattern", func(t *testing.T) {
		res, err := svc.Resolve(ctx, "tenant-a", "https://x.shop.acme.com/", "office")
		if err != nil {
			t.Fatal(err)
		}
		// *.acme.com knowledge applies to x.shop.acme.com.
		if !res.HasOrgKnowledge || !slices.Equal(ids(res.Chunks), []string{"The office opens at nine."}) || res.Debug.MatchedPattern != "*.shop.acme.com" {
			t.Errorf("got %v %q %+v, want the *.acme.com handbook through *.shop.acme.com", res.HasOrgKnowledge, ids(res.Chunks), res.Debug)
		}
	})

	t.Run("tenant isolation", func(t *testing.T) {
		for _, q := range []string{"", "expense", "office"} {
			res, err := svc.Resolve(ctx, "tenant-b", "https://app.acme.com/", q)
			if err != nil {
				t.Fatal(err)
			}
			if res.HasOrgKnowledge || len(res.Chunks) != 0 || !res.Debug.DomainMatched {
				t.Errorf("tenant-b, query %q: got %v %q, want its domain allowed but none of tenant-a's chunks", q, res.HasOrgKnowledge, ids(res.Chunks))
			}
		}
		res, _ := svc.Resolve(ctx, "tenant-c", "https://app.acme.com/", "expense")
		if res.HasOrgKnowledge || len(res.Chunks) != 0 || res.Debug.DomainMatched {
			t.Errorf("tenant-c: got %+v, want public-only", res)
		}
	})

	t.Run("validation", func(t *testing.T) {
		tests := []struct{ url, query, field string }{
			{"", "", "url"},
			{"not a url", "", "url"},
			{"ftp://app.acme.com/", "", "url"},
			{"https://app.acme.com/", string(make([]rune, knowledge.MaxQueryLength+1)), "query"},
		}
		for _, tt := range tests {
			_, err := svc.Resolve(ctx, "tenant-a", tt.url, tt.query)
			var ve *knowledge.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.field {
				t.Errorf("Resolve(%q) error = %v, want a ValidationError on %s", tt.url, err, tt.field)
			}
		}
	})
}

func TestResolveCache(t *testing.T) {
	f := newFixture(t)
	f.allow(t, "tenant-a", "app.acme.com")
	f.allow(t, "tenant-b", "app.acme.com")
	f.ingest(t, "tenant-a", "app.acme.com", "a.md", "A", knowledge.DocChunk{Content: "tenant a knowledge"})
	src := &counting{Source: knowledge.BuiltIn{Store: f.docs}}
	svc := knowledge.NewService(f.domains, src, time.Minute)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	svc.Now = func() time.Time { return now }
	ctx := context.Background()

	first, err := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/x", "knowledge")
	if err != nil || first.Debug.Cached || len(first.Chunks) != 1 {
		t.Fatalf("first lookup = %+v, %v", first, err)
	}
	first.Chunks[0].Content = "changed by the caller"
	again, _ := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/x", "knowledge")
	if !again.Debug.Cached || src.calls.Load() != 1 || again.Chunks[0].Content != "tenant a knowledge" {
		t.Errorf("second lookup: cached %v, %d source calls, chunk %q; want cached, 1 call, the original chunk", again.Debug.Cached, src.calls.Load(), again.Chunks[0].Content)
	}
	other, _ := svc.Resolve(ctx, "tenant-b", "https://app.acme.com/x", "knowledge")
	if other.Debug.Cached || len(other.Chunks) != 0 {
		t.Errorf("tenant-b after tenant-a: cached %v chunks %q, want its own, empty lookup", other.Debug.Cached, ids(other.Chunks))
	}
	now = now.Add(time.Minute)
	if late, _ := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/x", "knowledge"); late.Debug.Cached {
		t.Error("a result was served from the cache after its TTL")
	}
}

func TestResolveExternal(t *testing.T) {
	f := newFixture(t)
	f.allow(t, "tenant-a", "*.acme.com")
	var calls atomic.Int32
	var tenant atomic.Value
	var answer atomic.Value
	answer.Store(`{"context":[{"id":"c1","content":"From the service","documentTitle":"Remote"}],"citations":[{"documentId":"d1","documentTitle":"Remote"}]}`)
	status := atomic.Int32{}
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		tenant.Store(r.Header.Get(extraction.TenantHeader))
		w.WriteHeader(int(status.Load()))
		_, _ = w.Write([]byte(answer.Load().(string)))
	}))
	defer srv.Close()
	client, err := extraction.NewClient(srv.URL, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	svc := knowledge.NewService(f.domains, client, 0)
	ctx := context.Background()

	res, err := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/", "q")
	if err != nil || !res.HasOrgKnowledge || !slices.Equal(ids(res.Chunks), []string{"From the service"}) || len(res.Citations) != 1 || res.Debug.Source != "external" {
		t.Fatalf("got %+v, %v; want the service's chunk", res, err)
	}
	if got := tenant.Load(); got != "tenant-a" {
		t.Errorf("X-Tenant-ID = %v, want tenant-a", got)
	}

	answer.Store(`{"context":[],"citations":[]}`)
	if res, err := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/", "q"); err != nil || res.HasOrgKnowledge || len(res.Chunks) != 0 {
		t.Errorf("empty answer: got %+v, %v; want no org knowledge", res, err)
	}

	before := calls.Load()
	if res, err := svc.Resolve(ctx, "tenant-a", "https://example.org/", "q"); err != nil || res.HasOrgKnowledge || calls.Load() != before {
		t.Errorf("domain not allowed: got %+v, %v, %d calls; want public-only without calling the service", res, err, calls.Load()-before)
	}

	status.Store(http.StatusInternalServerError)
	answer.Store(`{"error":"boom","detail":"x"}`)
	if _, err := svc.Resolve(ctx, "tenant-a", "https://app.acme.com/", "q"); err == nil {
		t.Error("a failing service gave no error")
	}
}
