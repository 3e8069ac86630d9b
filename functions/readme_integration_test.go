package functions_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/stacktest"
)

// runnableBlock is a README example marked to run: a fenced block whose info string is
// "sh runnable".
var runnableBlock = regexp.MustCompile("(?ms)^```sh runnable\n(.*?)^```")

// Every runnable shell example of the README runs, in the order written, in one shell against a
// stack like the one `make run` starts (the demo account seeded, no model configured), from the
// repository root. Each answer is checked against the contract as in every stack test.
func TestReadmeExamplesRun(t *testing.T) {
	root, err := ddblocal.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range runnableBlock.FindAllStringSubmatch(string(readme), -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d runnable examples in README.md, want the quick start's and the sections'", len(blocks))
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
		t.Fatalf("README examples failed: %v\n%s", err, out)
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
			t.Errorf("README examples' output lacks %s:\n%s", want, out)
		}
	}
}
