package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/knowledgedb"
)

// newKnowledgeFixture is newFixture with the Knowledge table too.
func newKnowledgeFixture(t *testing.T) (fixture, *knowledgedb.Documents) {
	t.Helper()
	db := dynamotest.New(t)
	f := fixture{
		env: map[string]string{
			"DYNAMODB_ENDPOINT": db.Endpoint,
			"ACCOUNTS_TABLE":    db.Tables["AccountsTable"],
			"KNOWLEDGE_TABLE":   db.Tables["KnowledgeTable"],
		},
		store: accountsdb.New(db.Client, db.Tables["AccountsTable"]),
	}
	return f, knowledgedb.NewDocuments(db.Client, db.Tables["KnowledgeTable"])
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKnowledgeUsageErrors(t *testing.T) {
	f, _ := newKnowledgeFixture(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"domain add without tenant", []string{"domain", "add", "--pattern", "a.example.com"}, "exactly one of --email and --org"},
		{"domain add with both", []string{"domain", "add", "--email", "a@example.com", "--org", "A", "--pattern", "a.example.com"}, "exactly one of --email and --org"},
		{"domain add without pattern", []string{"domain", "add", "--org", "A"}, "--pattern is required"},
		{"domain add bad pattern", []string{"domain", "add", "--org", "A", "--pattern", "*.com"}, "--pattern must not cover a whole public suffix"},
		{"domain add URL", []string{"domain", "add", "--org", "A", "--pattern", "https://a.example.com/"}, "--pattern must be a host name"},
		{"ingest without files", []string{"knowledge", "ingest", "--org", "A", "--domain", "a.example.com"}, "name at least one FILE"},
		{"ingest without domain", []string{"knowledge", "ingest", "--org", "A", "x.md"}, "--domain is required"},
		{"delete with neither", []string{"knowledge", "delete", "--org", "A", "--domain", "a.example.com"}, "exactly one of --file and --id"},
		{"empty knowledge table", []string{"--knowledge-table", "", "domain", "list", "--org", "A"}, "--knowledge-table must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := admin(t, f.env, "", tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
}

// TestDomainAndKnowledgeCommands is the operator's path: allow a domain, ingest a policy,
// list, replace, delete.
func TestDomainAndKnowledgeCommands(t *testing.T) {
	f, docs := newKnowledgeFixture(t)
	ctx := t.Context()
	f.ok(t, "", "org", "create", "--name", "Acme")
	f.ok(t, "password-1", "user", "create", "--email", "ana@example.com", "--name", "Ana", "--org", "Acme", "--password-stdin")
	acme, err := f.store.GetOrganizationByName(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}

	// domains, by e-mail (Ana's default tenant is Acme) and by organization
	if out := f.ok(t, "", "domain", "add", "--email", "ana@example.com", "--pattern", "App.Acme.com"); !strings.Contains(out, "allowed app.acme.com for tenant \"Acme\"") {
		t.Errorf("domain add: %q", out)
	}
	f.ok(t, "", "domain", "add", "--org", "acme", "--pattern", "*.acme.org")
	if r := admin(t, f.env, "", "domain", "add", "--org", "Acme", "--pattern", "app.acme.com"); r.code != 1 || !strings.Contains(r.stderr, "already allowed") {
		t.Errorf("adding twice: exit %d, stderr %q; want 1 and already allowed", r.code, r.stderr)
	}
	if out := f.ok(t, "", "domain", "list", "--org", "Acme"); out != "*.acme.org\napp.acme.com\n" {
		t.Errorf("domain list = %q, want both patterns", out)
	}

	// ingest: one file reaches an allowed domain, the other gets a note
	dir := t.TempDir()
	policy := writeFile(t, dir, "expense-policy.md", "# Expense Policy\n\n## Submission\n\nSubmit expenses in Finance.\n")
	out := f.ok(t, "", "knowledge", "ingest", "--email", "ana@example.com", "--domain", "app.acme.com", policy)
	if !strings.Contains(out, `ingested expense-policy.md into app.acme.com as "Expense Policy"`) || !strings.Contains(out, "1 chunks, new") || strings.Contains(out, "note:") {
		t.Errorf("ingest: %q", out)
	}
	guide := writeFile(t, dir, "guide.txt", "Elsewhere.")
	if out := f.ok(t, "", "knowledge", "ingest", "--org", "Acme", "--domain", "intranet.acme.com", guide); !strings.Contains(out, "note: no allowed domain") {
		t.Errorf("ingest into an unreachable domain: %q, want a note", out)
	}
	bad := writeFile(t, dir, "bad.pdf", "%PDF")
	if r := admin(t, f.env, "", "knowledge", "ingest", "--org", "Acme", "--domain", "app.acme.com", policy, bad); r.code != 1 || !strings.Contains(r.stderr, "unsupported file type") {
		t.Errorf("ingest with a bad file: exit %d, stderr %q; want 1 and unsupported file type", r.code, r.stderr)
	}

	out = f.ok(t, "", "knowledge", "list", "--org", "Acme")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.Contains(lines[1], "app.acme.com") || !strings.Contains(lines[1], "Expense Policy") || !strings.Contains(lines[2], "intranet.acme.com") {
		t.Errorf("knowledge list = %q, want a header and both documents", out)
	}
	if out := f.ok(t, "", "knowledge", "list", "--org", "Acme", "--domain", "intranet.acme.com"); strings.Contains(out, "expense-policy.md") {
		t.Errorf("knowledge list --domain = %q, want only that domain's", out)
	}

	// re-ingesting replaces
	writeFile(t, dir, "expense-policy.md", "# Expense Policy\n\n## Submission\n\nNew rules.\n\n## Limits\n\n50 euros.\n")
	if out := f.ok(t, "", "knowledge", "ingest", "--org", "Acme", "--domain", "app.acme.com", policy); !strings.Contains(out, "2 chunks, replaced the previous version") {
		t.Errorf("re-ingest: %q", out)
	}
	chunks, err := docs.LoadChunks(ctx, acme.ID, []string{"app.acme.com"})
	if err != nil || len(chunks) != 2 || chunks[0].Content == "Submit expenses in Finance." {
		t.Errorf("chunks after re-ingesting = %+v, %v; want the two new ones", chunks, err)
	}

	// delete by file name, then by ID
	f.ok(t, "", "knowledge", "delete", "--org", "Acme", "--domain", "app.acme.com", "--file", policy)
	if r := admin(t, f.env, "", "knowledge", "delete", "--org", "Acme", "--domain", "app.acme.com", "--file", "expense-policy.md"); r.code != 1 || !strings.Contains(r.stderr, "has no document") {
		t.Errorf("deleting twice: exit %d, stderr %q", r.code, r.stderr)
	}
	f.ok(t, "", "knowledge", "delete", "--org", "Acme", "--domain", "intranet.acme.com", "--id", knowledge.DocumentID("intranet.acme.com", "guide.txt"))
	if out := f.ok(t, "", "knowledge", "list", "--org", "Acme"); !strings.Contains(out, "has no documents") {
		t.Errorf("knowledge list after deleting = %q", out)
	}

	f.ok(t, "", "domain", "remove", "--org", "Acme", "--pattern", "app.acme.com")
	if r := admin(t, f.env, "", "domain", "remove", "--org", "Acme", "--pattern", "app.acme.com"); r.code != 1 || !strings.Contains(r.stderr, "is not an allowed domain") {
		t.Errorf("removing twice: exit %d, stderr %q", r.code, r.stderr)
	}
	if out := f.ok(t, "", "domain", "list", "--email", "ana@example.com"); out != "*.acme.org\n" {
		t.Errorf("domain list after removing = %q", out)
	}
}
