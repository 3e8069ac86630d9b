// Command local runs the project on one machine without Docker:
//
//	local run            DynamoDB Local (data on disk under .local/dynamodb) + tables + demo account
//	                     + the API emulator (make run)
//	local invoke         one invocation of a function with an event file (make invoke)
//	local with-dynamodb  a command with a fresh DynamoDB Local in DYNAMODB_TEST_ENDPOINT (make test)
//	local tables         the template's tables and the demo account in a DynamoDB Local started elsewhere (sam local)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/emulator"
	"github.com/screenagent/backend/infra/localstack"
	"github.com/screenagent/backend/infra/tables"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/awsconfig"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/logging"
	"github.com/screenagent/backend/shared/sam"
	"github.com/screenagent/backend/shared/search/searchtest"
)

const usage = `usage:
  local run [--addr 127.0.0.1:3000] [--ws-addr 127.0.0.1:3001] [--dynamodb-port 8000] [--env-vars infra/env.json] [-v]
            [--data-dir .local/dynamodb | --in-memory] [--fresh]
            [--fake-search] [--fake-search-script FILE]
  local invoke --function <folder or logical ID> [--event FILE] [--dynamodb-endpoint URL (default: the running make run's)]
  local with-dynamodb -- COMMAND [ARGS...]
  local tables [--endpoint http://127.0.0.1:8000]   create the template's tables (and the demo account) in a running DynamoDB Local`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := logging.New(os.Stderr, slog.LevelInfo)

	var err error
	code := 1
	switch os.Args[1] {
	case "run":
		err = run(ctx, os.Args[2:])
	case "invoke":
		err = invoke(ctx, logger, os.Args[2:])
	case "with-dynamodb":
		code, err = withDynamoDB(ctx, os.Args[2:])
	case "tables":
		err = createTables(ctx, os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(code)
	}
	os.Exit(0)
}

// project is the repository root and its template.
type project struct {
	root string
	tmpl *sam.Template
}

func loadProject() (project, error) {
	root, err := ddblocal.RepoRoot()
	if err != nil {
		return project{}, err
	}
	tmpl, err := sam.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		return project{}, err
	}
	return project{root: root, tmpl: tmpl}, nil
}

// emulatorOptions are what differ between the emulators of run and invoke.
type emulatorOptions struct {
	envFile        string
	dynamoEndpoint string
	// overrides are more environment overrides of every function (e.g. the fake search).
	overrides map[string]string
	names     map[string]string
	// parameters override template parameters (e.g. AllowedOrigins).
	parameters map[string]string
	// output receives the functions' output; nil means os.Stderr.
	output io.Writer
	// progress hears of each built function.
	progress func(emulator.Built)
}

func (p project) emulator(logger *slog.Logger, o emulatorOptions) (*emulator.Emulator, error) {
	envFile := o.envFile
	overrides := map[string]string{"DYNAMODB_ENDPOINT": o.dynamoEndpoint}
	for k, v := range o.overrides {
		overrides[k] = v
	}
	if envFile != "" && !filepath.IsAbs(envFile) {
		envFile = filepath.Join(p.root, envFile)
	}
	if _, err := os.Stat(envFile); envFile != "" && err != nil {
		return nil, fmt.Errorf("env vars file: %w", err)
	}
	return emulator.New(emulator.Config{
		Template:  p.tmpl,
		Root:      p.root,
		Env:       sam.Env{Resources: o.names, Parameters: o.parameters},
		EnvFile:   envFile,
		Overrides: overrides,
		BuildDir:  filepath.Join(p.root, ".local", "build"),
		Logger:    logger,
		Output:    o.output,

		BuildProgress: o.progress,
	})
}

// EnvAllowedOrigins overrides the template's AllowedOrigins (comma-separated) for make run.
const EnvAllowedOrigins = "ALLOWED_ORIGINS"

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:3000", "address the API listens on")
	wsAddr := fs.String("ws-addr", "127.0.0.1:3001", "address the WebSocket API (and its management endpoint) listens on")
	port := fs.Int("dynamodb-port", 8000, "port of DynamoDB Local")
	envFile := fs.String("env-vars", "infra/env.json", "environment overrides in `sam local --env-vars` format")
	fakeSearch := fs.Bool("fake-search", false, "answer web searches from a local fake of the Tavily API, with made-up results")
	searchScript := fs.String("fake-search-script", "", "a JSON `file` of scripted results for the fake search ([{\"query\", \"results\"}]; implies --fake-search)")
	dataDir := fs.String("data-dir", filepath.Join(".local", "dynamodb"), "where DynamoDB Local keeps its data (relative to the repository)")
	inMemory := fs.Bool("in-memory", false, "keep no data: DynamoDB Local in memory (tests, the proving ground)")
	fresh := fs.Bool("fresh", false, "delete the data of earlier runs before starting")
	verbose := fs.Bool("v", os.Getenv("VERBOSE") != "", "show the request and function logs (JSON) here too (VERBOSE=1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := loadProject()
	if err != nil {
		return err
	}
	// Listen first: a taken port should fail before minutes of setup, not after. Until the API
	// is ready every request gets a prompt 503 saying what the stack is doing, rather than a
	// connection that hangs.
	lns, err := listenChecked(*port, listenSpec{addr: *addr, what: "the API", makeVar: "ADDR", flag: "--addr"},
		listenSpec{addr: *wsAddr, what: "the WebSocket API", makeVar: "WS_ADDR", flag: "--ws-addr"})
	if err != nil {
		return err
	}
	ln, wsLn := lns[0], lns[1]
	// The functions post to the connections through the emulator's management endpoint.
	wsURL := wsLn.Addr().String()
	g := newGate("starting DynamoDB Local")
	wsGate := newGate("starting")
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second}
	wsSrv := &http.Server{Handler: wsGate, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() { errc <- wsSrv.Serve(wsLn) }()
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		_ = wsSrv.Shutdown(shutdownCtx)
	}()
	_, apiPort, _ := net.SplitHostPort(*addr)
	logs, err := openRunLogs(p.root, apiPort, *verbose, os.Stderr)
	if err != nil {
		return err
	}
	defer logs.Close()
	logger := logs.logger()
	fmt.Fprintln(os.Stderr, logs.notice(p.root))

	overrides := map[string]string{"REALTIME_ENDPOINT": "http://" + wsURL, "REALTIME_URL": "ws://" + wsURL}
	if *fakeSearch || *searchScript != "" {
		fake, err := startFakeSearch(*searchScript)
		if err != nil {
			return err
		}
		defer fake.Close()
		// The fake replaces any configured key, so no real search is made by mistake.
		overrides["TAVILY_BASE_URL"], overrides["TAVILY_API_KEY"], overrides["TAVILY_API_KEY_SECRET_ARN"] = fake.URL(), searchtest.Key, ""
		fmt.Fprintf(os.Stderr, "Web searches are answered by a local fake of the Tavily API at %s.\n", fake.URL())
	}

	dir := ""
	if !*inMemory {
		if dir = *dataDir; !filepath.IsAbs(dir) {
			dir = filepath.Join(p.root, dir)
		}
		if *fresh {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("start fresh: %w", err)
			}
		}
	}
	fmt.Fprintln(os.Stderr, dataNotice(dir, *fresh))
	db, err := ddblocal.Start(ctx, ddblocal.Options{Port: *port, Log: logs.dynamoLog(), DataDir: dir})
	if err != nil {
		return err
	}
	defer db.Stop()

	g.setPhase("creating tables")
	cfg, err := awsconfig.Load(ctx, db.Endpoint(), config.AWSCredentialsInEnv())
	if err != nil {
		return err
	}
	client := awsconfig.DynamoDB(cfg, db.Endpoint())
	names, err := tables.Create(ctx, client, p.tmpl, "")
	if err != nil {
		return fmt.Errorf("create tables: %w", err)
	}
	fmt.Fprintf(os.Stderr, "DynamoDB Local on %s with %d tables.\n", db.Endpoint(), len(names))
	demo, err := seedDemo(ctx, client, names["AccountsTable"], *addr)
	if err != nil {
		return err
	}
	// From here the admin CLI and the thin client of this checkout find the stack.
	record, unpublish, err := localstack.Publish(p.root, localstack.Stack{
		API: "http://" + *addr, WebSocket: "ws://" + wsURL, DynamoDBEndpoint: db.Endpoint(), Tables: names, LogFile: logs.path,
	})
	if err != nil {
		return err
	}
	defer unpublish()

	opts := emulatorOptions{envFile: *envFile, dynamoEndpoint: db.Endpoint(), names: names, overrides: overrides,
		output: &stepLog{raw: logs.detail(), dst: os.Stderr}}
	if origins := os.Getenv(EnvAllowedOrigins); origins != "" {
		opts.parameters = map[string]string{"AllowedOrigins": origins}
	}
	progress := newBuildReporter(os.Stderr, g, len(p.tmpl.Functions()))
	opts.progress = progress.built
	emu, err := p.emulator(logger, opts)
	if err != nil {
		progress.finish()
		return err
	}
	defer emu.Close()
	err = emu.Build(ctx)
	progress.finish()
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "stopping")
		return nil
	}
	if err != nil {
		return err
	}

	g.open(emu.Handler())
	wsGate.open(emu.WebSocketHandler())
	fmt.Fprintf(os.Stderr, "\nAPI ready on http://%s  (try: curl -s -w '\\n' http://%s/api/health)\n"+
		"WebSocket API on ws://%s  (connect with a ticket from POST /api/realtime/ticket)\n%s\n"+
		"The admin CLI and the thin client of this checkout find this stack through %s.\nCtrl-C stops everything.\n\n",
		*addr, *addr, wsURL, demo, relTo(p.root, record))

	select {
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "stopping")
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// relTo is path relative to root when it is inside it.
func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return rel
	}
	return path
}

// dataNotice says where the local data lives and how to start without it.
func dataNotice(dir string, fresh bool) string {
	switch {
	case dir == "":
		return "DynamoDB Local runs in memory (--in-memory): users, tasks and knowledge are gone when it stops."
	case fresh:
		return fmt.Sprintf("Starting fresh: deleted the data in %s. Data of this run stays there.", dir)
	}
	return fmt.Sprintf("Local data (users, tasks, knowledge) is kept in %s; `make run FRESH=1` starts empty, `make run IN_MEMORY=1` keeps nothing.", dir)
}

// startFakeSearch starts the fake Tavily API: with a script, it answers the scripted queries
// (and nothing for others, as a search that finds nothing); without, made-up results for all.
func startFakeSearch(script string) (*searchtest.Server, error) {
	srv := searchtest.Start(searchtest.Key)
	if script == "" {
		srv.GenerateUnscripted()
		return srv, nil
	}
	f, err := os.Open(script)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("fake search script: %w", err)
	}
	defer f.Close()
	if err := srv.LoadScript(f); err != nil {
		srv.Close()
		return nil, err
	}
	return srv, nil
}

// Demo account defaults; DEMO_EMAIL, DEMO_PASSWORD and DEMO_ORG override them.
const (
	defaultDemoEmail    = "demo@example.com"
	defaultDemoPassword = "demo-password-123"
	defaultDemoOrg      = "Demo Org"
)

// seedDemo creates the demo organization and user on first start and says how to log in.
func seedDemo(ctx context.Context, client *dynamodb.Client, accountsTable, addr string) (string, error) {
	email, password, org := envOr("DEMO_EMAIL", defaultDemoEmail), envOr("DEMO_PASSWORD", defaultDemoPassword), envOr("DEMO_ORG", defaultDemoOrg)
	store := accountsdb.New(client, accountsTable)
	if _, err := provision.EnsureDemo(ctx, store, email, password, org); err != nil {
		return "", err
	}
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)
	return fmt.Sprintf("Demo login (organization %q): curl -s -w '\\n' -X POST http://%s/api/v1/auth/login -H 'Content-Type: application/json' -d '%s'", org, addr, body), nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func invoke(ctx context.Context, logger *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("invoke", flag.ContinueOnError)
	fn := fs.String("function", "", "function folder under functions/ or its logical ID")
	eventFile := fs.String("event", "", "event JSON file (default: {})")
	endpoint := fs.String("dynamodb-endpoint", "", "a DynamoDB Local with the template's tables (default: that of the running `make run`)")
	envFile := fs.String("env-vars", "infra/env.json", "environment overrides in `sam local --env-vars` format")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *fn == "" {
		return errors.New("--function is required")
	}
	event := []byte("{}")
	if *eventFile != "" {
		b, err := os.ReadFile(*eventFile)
		if err != nil {
			return fmt.Errorf("read event: %w", err)
		}
		event = b
	}
	p, err := loadProject()
	if err != nil {
		return err
	}
	names := tables.Names(p.tmpl, "")
	if *endpoint == "" {
		st, err := localstack.Find(p.root, "--dynamodb-endpoint URL")
		if err != nil {
			return err
		}
		*endpoint, names = st.DynamoDBEndpoint, st.Tables
		fmt.Fprintf(os.Stderr, "invoking %s against %s\n", *fn, st.Describe())
	}
	cfg, err := awsconfig.Load(ctx, *endpoint, config.AWSCredentialsInEnv())
	if err != nil {
		return err
	}
	if _, err := awsconfig.DynamoDB(cfg, *endpoint).ListTables(ctx, nil); err != nil {
		return fmt.Errorf("DynamoDB Local at %s does not answer (start it with `make run` in another terminal): %w", *endpoint, err)
	}
	emu, err := p.emulator(logger, emulatorOptions{envFile: *envFile, dynamoEndpoint: *endpoint, names: names})
	if err != nil {
		return err
	}
	defer emu.Close()
	out, err := emu.Invoke(ctx, *fn, event)
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

// createTables prepares a DynamoDB Local that something else started (e.g. in Docker for sam local).
func createTables(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tables", flag.ContinueOnError)
	endpoint := fs.String("endpoint", "http://127.0.0.1:8000", "DynamoDB Local endpoint")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p, err := loadProject()
	if err != nil {
		return err
	}
	cfg, err := awsconfig.Load(ctx, *endpoint, config.AWSCredentialsInEnv())
	if err != nil {
		return err
	}
	client := awsconfig.DynamoDB(cfg, *endpoint)
	names, err := tables.Create(ctx, client, p.tmpl, "")
	if err != nil {
		return fmt.Errorf("create tables: %w", err)
	}
	demo, err := seedDemo(ctx, client, names["AccountsTable"], "127.0.0.1:3000")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d tables ready at %s\n%s\n", len(names), *endpoint, demo)
	return nil
}

// withDynamoDB runs a command with DYNAMODB_TEST_ENDPOINT pointing at a fresh DynamoDB Local, so
// every test package of one `go test ./...` shares one JVM, and returns the command's exit code.
func withDynamoDB(ctx context.Context, args []string) (int, error) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return 2, errors.New("with-dynamodb needs a command")
	}
	db, err := ddblocal.Start(ctx, ddblocal.Options{Log: os.Stderr})
	if err != nil {
		return 1, err
	}
	defer db.Stop()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "DYNAMODB_TEST_ENDPOINT="+db.Endpoint())
	if err := cmd.Start(); err != nil {
		return 1, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err = <-done
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), fmt.Errorf("%s exited with code %d", args[0], exit.ExitCode())
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}
