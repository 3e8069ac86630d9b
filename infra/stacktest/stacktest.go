// Package stacktest runs the real API for integration tests: the template's tables in DynamoDB
// Local (dynamotest) and the function binaries behind the local emulator, over real HTTP. Every
// answer the stack gives is checked against the OpenAPI contract (infra/openapi); one the
// contract does not allow fails the test.
//
// A package opts in with
//
//	func TestMain(m *testing.M) { dynamotest.Main(m) }
//
// and each test calls New(t, stacktest.Options{...}).
package stacktest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/infra/emulator"
	"github.com/screenagent/backend/infra/openapi"
	"github.com/screenagent/backend/shared/sam"
)

// Options tune one stack.
type Options struct {
	// Env overrides function environment variables (e.g. a low rate limit).
	Env map[string]string
	// DynamoDBEndpoint, when set, replaces the tables' endpoint in the functions' environment
	// (e.g. an address where nothing listens).
	DynamoDBEndpoint string
	// Output, when set, also receives the functions' stdout and stderr (their log lines).
	Output io.Writer
}

// Stack is a running API.
type Stack struct {
	URL string
	// WebSocketURL is the WebSocket API's address (ws://…), which also serves its management API.
	WebSocketURL string
	DB           *dynamotest.DB
}

var (
	loadOnce  sync.Once
	root      string
	tmpl      *sam.Template
	validator *openapi.Validator
	loadErr   error
)

// New starts a stack whose functions are built on first use and stopped at the test's end.
func New(t testing.TB, opts Options) *Stack {
	t.Helper()
	loadOnce.Do(func() {
		root, loadErr = ddblocal.RepoRoot()
		if loadErr == nil {
			tmpl, loadErr = sam.Load(filepath.Join(root, "template.yaml"))
		}
		if loadErr == nil {
			validator, loadErr = openapi.NewValidator(context.Background())
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	db := dynamotest.New(t)
	wsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wsAddr := wsLn.Addr().String()
	overrides := map[string]string{"DYNAMODB_ENDPOINT": db.Endpoint, "REALTIME_ENDPOINT": "http://" + wsAddr, "REALTIME_URL": "ws://" + wsAddr}
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
	var funcOut io.Writer = os.Stderr
	if opts.Output != nil {
		funcOut = io.MultiWriter(os.Stderr, opts.Output)
		if !testing.Verbose() {
			funcOut = opts.Output
		}
	}
	emu, err := emulator.New(emulator.Config{
		Output:    funcOut,
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
	srv := httptest.NewServer(checked(t, emu.Handler()))
	wsSrv := &httptest.Server{Listener: wsLn, Config: &http.Server{Handler: emu.WebSocketHandler()}}
	wsSrv.Start()
	t.Cleanup(func() {
		srv.Close()
		// Closing the emulator first ends the WebSocket connections, which the server's Close
		// would otherwise wait for.
		_ = emu.Close()
		wsSrv.Close()
	})
	return &Stack{URL: srv.URL, WebSocketURL: "ws://" + wsAddr, DB: db}
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

// checked passes every request to h and fails the test when h's answer is not one the contract
// allows, whichever client of the test sent it.
func checked(t testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if err := validator.CheckResponse(r.Context(), r, rec.status, w.Header(), rec.body.Bytes()); err != nil {
			t.Errorf("contract: %v", err)
		}
	})
}

// recorder keeps a copy of what it writes through.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
