// Package stacktest runs the real API for integration tests: the template's tables in DynamoDB
// Local (dynamotest) and the function binaries behind the local emulator, over real HTTP.
//
// A package opts in with
//
//	func TestMain(m *testing.M) { dynamotest.Main(m) }
//
// and each test calls New(t, stacktest.Options{...}).
package stacktest

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/emulator"
	"github.com/screenagent/backend/shared/dynamotest"
	"github.com/screenagent/backend/shared/sam"
)

// Options tune one stack.
type Options struct {
	// Env overrides function environment variables (e.g. a low rate limit).
	Env map[string]string
	// DynamoDBEndpoint, when set, replaces the tables' endpoint in the functions' environment
	// (e.g. an address where nothing listens).
	DynamoDBEndpoint string
}

// Stack is a running API.
type Stack struct {
	URL string
	DB  *dynamotest.DB
}

var (
	loadOnce sync.Once
	root     string
	tmpl     *sam.Template
	loadErr  error
)

// New starts a stack whose functions are built on first use and stopped at the test's end.
func New(t testing.TB, opts Options) *Stack {
	t.Helper()
	loadOnce.Do(func() {
		root, loadErr = ddblocal.RepoRoot()
		if loadErr == nil {
			tmpl, loadErr = sam.Load(filepath.Join(root, "template.yaml"))
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	db := dynamotest.New(t)
	overrides := map[string]string{"DYNAMODB_ENDPOINT": db.Endpoint}
	if opts.DynamoDBEndpoint != "" {
		overrides["DYNAMODB_ENDPOINT"] = opts.DynamoDBEndpoint
	}
	for k, v := range opts.Env {
		overrides[k] = v
	}
	var logOut io.Writer = io.Discard
	if testing.Verbose() {
		logOut = os.Stderr
	}
	emu, err := emulator.New(emulator.Config{
		Template:  tmpl,
		Root:      root,
		Env:       sam.Env{Resources: db.Tables},
		Overrides: overrides,
		BuildDir:  buildDir(),
		Logger:    slog.New(slog.NewJSONHandler(logOut, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(emu.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = emu.Close()
	})
	return &Stack{URL: srv.URL, DB: db}
}

// buildDir is one folder per test package, kept between runs so unchanged functions relink
// quickly, and never shared by two test binaries at once.
func buildDir() string {
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(root, wd)
	if err != nil {
		rel = filepath.Base(wd)
	}
	return filepath.Join(root, ".local", "test-build", strings.ReplaceAll(rel, string(filepath.Separator), "_"))
}
