package functions_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/screenagent/backend/"

// store reports whether pkg is a store package: the store side of a domain, the only place that
// declares storage records.
func store(pkg string) bool { return strings.HasPrefix(pkg, "shared/") && strings.HasSuffix(pkg, "db") }

// heavy are the packages a function links only when it needs them (DESIGN decision 16): the
// stores, whose SDK code and item types are most of a binary, and the LLM client. trustdb holds
// only the records of trust's types, linked with the tasks and runs stores that keep them.
func heavy(pkg string) bool {
	return store(pkg) && pkg != "shared/trust/trustdb" || pkg == "shared/llm/provider"
}

// linked is what each function may link of heavy, and must: a function that gains a store or the LLM
// client, or keeps one it no longer uses, fails here. A new function is added to this table.
var linked = map[string][]string{
	"agent-interact": {"shared/accounts/accountsdb", "shared/actioncache/cachedb", "shared/agent/agentdb", "shared/chat/chatdb",
		"shared/knowledge/knowledgedb", "shared/llm/provider", "shared/realtime/realtimedb", "shared/search/searchdb", "shared/tasks/tasksdb"},
	"api-health":         {"shared/accounts/accountsdb"},
	"auth-login":         {"shared/accounts/accountsdb"},
	"auth-logout":        {"shared/accounts/accountsdb"},
	"auth-session":       {"shared/accounts/accountsdb"},
	"cleanup":            {"shared/accounts/accountsdb", "shared/chat/chatdb", "shared/runs/runsdb", "shared/tasks/tasksdb"},
	"debug-export":       {"shared/accounts/accountsdb", "shared/chat/chatdb", "shared/tasks/tasksdb"},
	"debug-logs":         {"shared/accounts/accountsdb", "shared/tasks/tasksdb"},
	"extraction-resolve": {"shared/accounts/accountsdb", "shared/knowledge/knowledgedb"},
	"health":             {"shared/accounts/accountsdb"},
	"knowledge-resolve":  {"shared/accounts/accountsdb", "shared/knowledge/knowledgedb"},
	"preferences-get":    {"shared/accounts/accountsdb"},
	"preferences-post":   {"shared/accounts/accountsdb"},
	"realtime-ticket":    {"shared/accounts/accountsdb", "shared/realtime/realtimedb"},
	"run-answer":         {"shared/accounts/accountsdb", "shared/realtime/realtimedb", "shared/runs/runsdb"},
	"run-cancel":         {"shared/accounts/accountsdb", "shared/runs/runsdb"},
	"run-get":            {"shared/accounts/accountsdb", "shared/runs/runsdb"},
	"run-start":          {"shared/accounts/accountsdb", "shared/runs/runsdb"},
	"run-step":           {"shared/accounts/accountsdb", "shared/actioncache/cachedb", "shared/llm/provider", "shared/realtime/realtimedb", "shared/runs/runsdb"},
	"session-archive":    {"shared/accounts/accountsdb", "shared/chat/chatdb"},
	"session-latest":     {"shared/accounts/accountsdb", "shared/chat/chatdb"},
	"session-list":       {"shared/accounts/accountsdb", "shared/chat/chatdb"},
	"session-messages":   {"shared/accounts/accountsdb", "shared/chat/chatdb"},
	"ws-connect":         {"shared/accounts/accountsdb", "shared/realtime/realtimedb"},
	"ws-default":         {"shared/accounts/accountsdb", "shared/realtime/realtimedb"},
	"ws-disconnect":      {"shared/accounts/accountsdb", "shared/realtime/realtimedb"},
	"ws-subscribe":       {"shared/accounts/accountsdb", "shared/chat/chatdb", "shared/realtime/realtimedb", "shared/runs/runsdb"},
	"ws-unsubscribe":     {"shared/accounts/accountsdb", "shared/realtime/realtimedb"},
}

// wiring are the shared packages whose job is to build services on stores for the functions; every
// other shared package is a domain package, which declares the interfaces it consumes instead.
var wiring = []string{
	"shared/app",                 // every function's cold start: the accounts store behind authentication
	"shared/sessionapp",          // the session functions: the chat store
	"shared/runs/runapi",         // the run functions: the run store
	"shared/knowledge/retrieval", // the knowledge service on its stores
	"shared/retention/cleanup",   // the cleanup job deletes from the stores themselves
	"shared/agent/agentdb",       // the interact engine's store adapter
	"shared/realtimeapp",         // the WebSocket API's functions and the publishers: the realtime store
}

type listed struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	Deps         []string
}

// packages is `go list -json` of patterns, with the module's prefix cut from every path.
func packages(t *testing.T, patterns ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,GoFiles,TestGoFiles,XTestGoFiles,Imports,Deps"}, patterns...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("go list: %v\n%s", err, exit.Stderr)
	}
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, module)
		p.Imports = ours(p.Imports)
		p.Deps = ours(p.Deps)
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	return out
}

func TestFunctionsLinkOnlyTheStoresTheyUse(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range packages(t, "./functions/...") {
		name, ok := strings.CutPrefix(p.ImportPath, "functions/")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		seen[name] = true
		var got []string
		for _, d := range p.Deps {
			if heavy(d) {
				got = append(got, d)
			}
		}
		want, known := linked[name]
		if !known {
			t.Errorf("functions/%s links %v: add it to the table linked in deps_test.go with the stores it needs", name, got)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("functions/%s links %v, want %v", name, got, want)
		}
	}
	for name := range linked {
		if !seen[name] {
			t.Errorf("the table names functions/%s, which does not exist", name)
		}
	}
}

func TestDependenciesRunOneWay(t *testing.T) {
	for _, p := range packages(t, "./shared/...") {
		for _, imp := range p.Imports {
			switch {
			case (heavy(imp) || store(imp)) && !store(p.ImportPath) && !slices.Contains(wiring, p.ImportPath):
				t.Errorf("%s imports the store %s: a domain package declares the interface it consumes", p.ImportPath, imp)
			case strings.HasPrefix(p.ImportPath, "shared/runs") && imp == "shared/history":
				t.Errorf("%s imports shared/history: the run API shares nothing with the interact history", p.ImportPath)
			case strings.HasPrefix(imp, "infra/"):
				t.Errorf("%s imports %s: shared code runs in the functions, and infra/ is tools and test support built on it", p.ImportPath, imp)
			case imp == "shared/agent/page" && p.ImportPath != "shared/agent" && !strings.HasPrefix(p.ImportPath, "shared/agent/"):
				t.Errorf("%s imports the interact engine's page view shared/agent/page: the parsed page is shared/pagemodel, the token estimator shared/tokens", p.ImportPath)
			case p.ImportPath == "shared/pagemodel" && (strings.HasPrefix(imp, "shared/agent") || strings.HasPrefix(imp, "shared/runs")):
				t.Errorf("shared/pagemodel imports %s: the parsed page serves both engines and the action cache, and depends on neither engine", imp)
			}
		}
	}
}

// TestOnlyStoresTagStorage keeps the storage layout in the stores: a domain type with a dynamodbav
// tag would change what is stored when a field is renamed, so only a store package (*db) declares
// records, and converts them to and from the domain types.
func TestOnlyStoresTagStorage(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range packages(t, "./...") {
		if store(p.ImportPath) {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if field, ok := n.(*ast.Field); ok && field.Tag != nil && strings.Contains(field.Tag.Value, "dynamodbav:") {
					t.Errorf("%s: %s has a dynamodbav tag: records belong to a store package (*db)", fset.Position(field.Pos()), p.ImportPath)
				}
				return true
			})
		}
	}
}

// TestEngineTestsNeedNoDynamoDB keeps the engines' and the action cache's tests on in-memory stores
// (agenttest, runstest, cachetest), which the store packages hold to the DynamoDB stores with
// contract tests: those tests then run in seconds, without Java or DynamoDB Local.
func TestEngineTestsNeedNoDynamoDB(t *testing.T) {
	for _, p := range packages(t, "-deps", "-test", "./shared/agent", "./shared/runs", "./shared/actioncache") {
		// A package compiled for a test is listed as "path [pkg.test]".
		path, _, _ := strings.Cut(p.ImportPath, " ")
		if store(path) || path == "infra/dynamotest" {
			t.Errorf("the engines' tests link %s: test them on the in-memory stores", path)
		}
	}
}
