package functions_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

// runnableBlock is a documented example marked to run: a fenced block whose info string is
// "sh runnable".
var runnableBlock = regexp.MustCompile("(?ms)^```sh runnable\n(.*?)^```")

// documentedExamples returns the runnable examples of README.md, then of docs/*.md by file name:
// the README's first requests set the token the pages' examples use.
func documentedExamples(t *testing.T, root string) (blocks []string, perFile map[string]int) {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages)
	perFile = map[string]int{}
	for _, path := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, m := range runnableBlock.FindAllStringSubmatch(string(text), -1) {
			blocks = append(blocks, m[1])
			perFile[rel]++
		}
	}
	return blocks, perFile
}

// Every runnable shell example of the README and the docs pages runs, in the order written, in
// one shell against a stack like the one `make run` starts (the demo account seeded, no model
// configured), from the repository root. Each answer is checked against the contract as in every
// stack test.
func TestReadmeExamplesRun(t *testing.T) {
	root, err := ddblocal.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	blocks, perFile := documentedExamples(t, root)
	if perFile["README.md"] < 1 || perFile[filepath.Join("docs", "api.md")] < 5 {
		t.Fatalf("found runnable examples %v, want the README's first requests and the API page's sections", perFile)
	}

	stack := stacktest.New(t, stacktest.Options{Env: map[string]string{"OPENAI_API_KEY": ""}})
	accountsTable := stack.DB.Tables["AccountsTable"]
	if _, err := provision.EnsureDemo(context.Background(), accountsdb.New(stack.DB.Client, accountsTable),
		"demo@example.com", "demo-password-123", "Demo Org"); err != nil {
		t.Fatal(err)
	}

	// The examples name make run's address; this stack listens elsewhere.
	script := "set -euo pipefail\n" + strings.ReplaceAll(strings.Join(blocks, "\n"), "http://127.0.0.1:3000", stack.URL)
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"DYNAMODB_ENDPOINT="+stack.DB.Endpoint,
		"ACCOUNTS_TABLE="+accountsTable,
		"KNOWLEDGE_TABLE="+stack.DB.Tables["KnowledgeTable"],
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("documented examples failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		`"status":"healthy"`,
		`"theme":"dark","language":"en"`, // the second save merged
		`"debugMode":true`,
		"HTTP/1.1 204",
		`"code":"UNAUTHORIZED"`,             // the revoked token
		"No language model is configured",   // interact without a model
		`"hasOrgKnowledge":true`,            // resolve after the ingest
		"Submit expenses within 30 days",    // ... and the internal route
		"tenant \"Acme\" (organization, id", // set-tier names the tenant
		`{"success":true}`,                  // the run cancelled
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("documented examples' output lacks %s:\n%s", want, out)
		}
	}
}

// mdLink is a Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The README and the docs pages stand alone for someone who has only the repository: every link
// names a file of the repository that exists, none a page elsewhere or a path outside it.
func TestDocsLinksStayInRepository(t *testing.T) {
	root, err := ddblocal.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, page := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range mdLink.FindAllStringSubmatch(string(text), -1) {
			if rel == "README.md" {
				linked[strings.SplitN(m[1], "#", 2)[0]] = true
			}
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" {
				continue // an anchor on the same page
			}
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				t.Errorf("%s links to %s, outside the repository", rel, m[1])
				continue
			}
			abs := filepath.Join(filepath.Dir(page), target)
			if inside, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(inside, "..") {
				t.Errorf("%s links to %s, outside the repository", rel, m[1])
			} else if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, m[1])
			}
		}
	}
	// The README is the way in: every page under docs/ is reachable from it.
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		if !linked[filepath.ToSlash(rel)] {
			t.Errorf("README.md does not link to %s", rel)
		}
	}
}
