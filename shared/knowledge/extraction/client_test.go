package extraction

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/knowledge"
)

// fakeService is an extraction service that answers status and body and records the request;
// with hang it never answers, until the client gives up.
func fakeService(t *testing.T, status int, body string, hang bool) (*httptest.Server, *http.Request) {
	t.Helper()
	var got http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = *r.Clone(context.Background())
		if hang {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func request() knowledge.Request {
	return knowledge.Request{TenantID: "org_abc123", URL: "https://app.example.com/page?x=1", Host: "app.example.com", Query: "how to submit"}
}

const schemaExample = `{
  "context": [
    {"id": "chunk_01", "content": "To submit an expense, go to Finance > Submit.", "documentTitle": "Expense Policy",
     "metadata": {"section": "Submission", "page": 2}}
  ],
  "citations": [{"documentId": "doc_xyz", "documentTitle": "Expense Policy", "section": "Submission", "page": 2}],
  "extra": "ignored"
}`

func TestClientSuccess(t *testing.T) {
	srv, got := fakeService(t, http.StatusOK, schemaExample, false)
	c, err := NewClient(srv.URL+"/base/", 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Retrieve(context.Background(), request())
	if err != nil {
		t.Fatalf("Retrieve: %v", err)
	}
	want := knowledge.Retrieval{
		Chunks: []knowledge.Chunk{{
			ID: "chunk_01", Content: "To submit an expense, go to Finance > Submit.", DocumentTitle: "Expense Policy",
			Metadata: map[string]any{"section": "Submission", "page": float64(2)},
		}},
		Citations:    []knowledge.Citation{{DocumentID: "doc_xyz", DocumentTitle: "Expense Policy", Section: "Submission", Page: 2}},
		HasKnowledge: true,
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("got %+v\nwant %+v", res, want)
	}
	checks := []struct{ name, got, want string }{
		{"method", got.Method, "GET"},
		{"path", got.URL.Path, "/base/api/knowledge/resolve"},
		{"url", got.URL.Query().Get("url"), "https://app.example.com/page?x=1"},
		{"query", got.URL.Query().Get("query"), "how to submit"},
		{"X-Tenant-ID", got.Header.Get("X-Tenant-ID"), "org_abc123"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("request %s = %q, want %q", ch.name, ch.got, ch.want)
		}
	}
}

func TestClientLeavesOutAnEmptyQuery(t *testing.T) {
	srv, got := fakeService(t, http.StatusOK, `{"context":[]}`, false)
	c, _ := NewClient(srv.URL, 0)
	r := request()
	r.Query = ""
	if _, err := c.Retrieve(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if got.URL.Query().Has("query") {
		t.Errorf("request query %q has query=, want it left out", got.URL.RawQuery)
	}
}

func TestClientEmpty(t *testing.T) {
	for _, body := range []string{`{"context": [], "citations": []}`, `{"context": []}`} {
		srv, _ := fakeService(t, http.StatusOK, body, false)
		c, _ := NewClient(srv.URL, 0)
		res, err := c.Retrieve(context.Background(), request())
		if err != nil || res.HasKnowledge || len(res.Chunks) != 0 || res.Citations == nil || len(res.Citations) != 0 {
			t.Errorf("body %s: got %+v, %v; want no knowledge, empty chunks and citations", body, res, err)
		}
	}
}

func TestClientFailures(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		hang   bool
		want   string
	}{
		{"500", http.StatusInternalServerError, `{"error":"RAG down","detail":"index unavailable"}`, false, "status 500: RAG down: index unavailable"},
		{"401", http.StatusUnauthorized, `{"error":"Unauthorized","detail":"X-Tenant-ID is required"}`, false, "status 401: Unauthorized"},
		{"502 without a contract body", http.StatusBadGateway, `<html>bad gateway</html>`, false, "status 502"},
		// Go words a client timeout differently depending on where it strikes; want "" checks it is one.
		{"timeout", http.StatusOK, `{"context":[]}`, true, ""},
		{"invalid JSON", http.StatusOK, `{"context": [`, false, "invalid response"},
		{"not an object", http.StatusOK, `[]`, false, "invalid response"},
		{"context missing", http.StatusOK, `{"citations": []}`, false, "invalid response: context is missing"},
		{"context null", http.StatusOK, `{"context": null}`, false, "invalid response: context is missing"},
		{"context not an array", http.StatusOK, `{"context": {}}`, false, "invalid response"},
		{"chunk without id", http.StatusOK, `{"context": [{"content": "x", "documentTitle": "T"}]}`, false, "invalid response: context[0] lacks id"},
		{"chunk with a number id", http.StatusOK, `{"context": [{"id": 1, "content": "x", "documentTitle": "T"}]}`, false, "invalid response"},
		{"metadata not an object", http.StatusOK, `{"context": [{"id": "a", "content": "x", "documentTitle": "T", "metadata": []}]}`, false, "invalid response"},
		{"citation without title", http.StatusOK, `{"context": [], "citations": [{"documentId": "d"}]}`, false, "invalid response: citations[0] lacks"},
		{"page not a number", http.StatusOK, `{"context": [], "citations": [{"documentId": "d", "documentTitle": "T", "page": "2"}]}`, false, "invalid response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := fakeService(t, tt.status, tt.body, tt.hang)
			c, _ := NewClient(srv.URL, 200*time.Millisecond)
			_, err := c.Retrieve(context.Background(), request())
			if tt.want == "" {
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					t.Errorf("got error %v, want a timeout", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestClientHonoursTheContextDeadline(t *testing.T) {
	srv, _ := fakeService(t, http.StatusOK, `{"context":[]}`, true)
	c, _ := NewClient(srv.URL, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Retrieve(ctx, request()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
}

func TestDecodePages(t *testing.T) {
	res, err := Decode([]byte(`{"context": [], "citations": [
		{"documentId": "a", "documentTitle": "A", "page": 3},
		{"documentId": "b", "documentTitle": "B", "page": 2.5},
		{"documentId": "c", "documentTitle": "C", "page": 0},
		{"documentId": "d", "documentTitle": "D", "section": null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pages := []int{res.Citations[0].Page, res.Citations[1].Page, res.Citations[2].Page, res.Citations[3].Page}
	if !reflect.DeepEqual(pages, []int{3, 0, 0, 0}) {
		t.Errorf("pages = %v, want [3 0 0 0]: only whole numbers from 1 are kept", pages)
	}
}

func TestNewClientRefuses(t *testing.T) {
	for _, base := range []string{"", "ftp://x", "/relative", "https://x?a=b"} {
		if _, err := NewClient(base, 0); err == nil {
			t.Errorf("NewClient(%q) accepted it", base)
		}
	}
}
