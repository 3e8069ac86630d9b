// Package dynamotest gives integration tests the template's tables in Amazon DynamoDB Local: one
// server per test binary (or the one `make test` shares through DYNAMODB_TEST_ENDPOINT) and a
// fresh set of tables per test, under a unique prefix, so tests and packages run in parallel.
//
// A package opts in with
//
//	func TestMain(m *testing.M) { dynamotest.Main(m) }
//
// and each test calls New(t).
package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/tables"
	"github.com/screenagent/backend/shared/awsconfig"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/sam"
)

// EndpointEnv names the variable through which `make test` hands every test binary one shared
// DynamoDB Local.
const EndpointEnv = "DYNAMODB_TEST_ENDPOINT"

// startLimit bounds starting DynamoDB Local, including a first `npm ci`.
const startLimit = 5 * time.Minute

// endpoint is set by Main before any test runs.
var endpoint string

// Main runs the package's tests against DynamoDB Local and exits with their status. It uses the
// server named by DYNAMODB_TEST_ENDPOINT, or starts one for this test binary. It never skips:
// when no server can be had it says why and exits non-zero.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if ep := os.Getenv(EndpointEnv); ep != "" {
		endpoint = ep
		return m.Run()
	}
	// testing.Verbose needs parsed flags; m.Run would parse them anyway.
	flag.Parse()
	var log io.Writer = io.Discard
	if testing.Verbose() {
		log = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), startLimit)
	srv, err := ddblocal.Start(ctx, ddblocal.Options{Log: log})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "dynamotest: cannot run integration tests without DynamoDB Local: %v\n", err)
		return 1
	}
	defer srv.Stop()
	endpoint = srv.Endpoint()
	return m.Run()
}

// Endpoint is the DynamoDB Local URL the package's tests use, for tests that only need the
// endpoint (e.g. to point the local emulator at it). It is empty unless Main runs the tests or
// DYNAMODB_TEST_ENDPOINT is set.
func Endpoint() string {
	if endpoint != "" {
		return endpoint
	}
	return os.Getenv(EndpointEnv)
}

// DB is one test's set of tables.
type DB struct {
	Client   *dynamodb.Client
	Endpoint string
	// Tables maps a table's logical ID (TasksTable) to its name in this test.
	Tables map[string]string
	// Env holds the Globals environment variables that name a table (TASKS_TABLE, ...), set to
	// this test's tables, and DYNAMODB_ENDPOINT.
	Env map[string]string
}

// New creates every table of template.yaml under a prefix unique to this test and deletes them
// when the test ends.
func New(t testing.TB) *DB {
	t.Helper()
	ep := Endpoint()
	if ep == "" {
		t.Fatalf("dynamotest: no DynamoDB Local; call dynamotest.Main(m) from TestMain or set %s", EndpointEnv)
	}
	tmpl, err := loadTemplate()
	if err != nil {
		t.Fatalf("dynamotest: %v", err)
	}
	client, err := sharedClient(ep)
	if err != nil {
		t.Fatalf("dynamotest: %v", err)
	}
	prefix := "t" + randomHex(4) + "_"

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	names, err := tables.Create(ctx, client, tmpl, prefix)
	// Registered before the check, so tables created before a failure are removed too.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := tables.Delete(ctx, client, tables.Names(tmpl, prefix)); err != nil {
			t.Errorf("dynamotest: delete tables: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("dynamotest: %v", err)
	}

	env, err := tableEnv(tmpl, names)
	if err != nil {
		t.Fatalf("dynamotest: %v", err)
	}
	env["DYNAMODB_ENDPOINT"] = ep
	return &DB{Client: client, Endpoint: ep, Tables: names, Env: env}
}

// tableEnv resolves Globals.Function's environment against the created tables and keeps the
// variables that resolve to one of them, so the template decides which variables name tables.
func tableEnv(tmpl *sam.Template, names map[string]string) (map[string]string, error) {
	env, err := tmpl.ResolveEnvironment(sam.Function{
		LogicalID:   "Globals",
		Environment: globalVariables(tmpl),
	}, sam.Env{Resources: names})
	if err != nil {
		return nil, err
	}
	created := make([]string, 0, len(names))
	for _, name := range names {
		created = append(created, name)
	}
	out := map[string]string{}
	for k, v := range env {
		if slices.Contains(created, v) {
			out[k] = v
		}
	}
	return out, nil
}

func globalVariables(tmpl *sam.Template) map[string]any {
	environment, _ := tmpl.GlobalFunction["Environment"].(map[string]any)
	vars, _ := environment["Variables"].(map[string]any)
	return vars
}

var (
	loadTemplate = sync.OnceValues(func() (*sam.Template, error) {
		root, err := ddblocal.RepoRoot()
		if err != nil {
			return nil, err
		}
		return sam.Load(filepath.Join(root, "template.yaml"))
	})
	clientMu sync.Mutex
	clients  = map[string]*dynamodb.Client{}
)

// sharedClient builds one client per endpoint, so tests share its connection pool.
func sharedClient(ep string) (*dynamodb.Client, error) {
	clientMu.Lock()
	defer clientMu.Unlock()
	if c, ok := clients[ep]; ok {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := awsconfig.Load(ctx, ep, config.AWSCredentialsInEnv())
	if err != nil {
		return nil, err
	}
	c := awsconfig.DynamoDB(cfg, ep)
	clients[ep] = c
	return c, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
