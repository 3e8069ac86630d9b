package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tiktoken-go/tokenizer"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/infra/emulator"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/actioncache/cachedb"
	"github.com/screenagent/backend/shared/agent"
	"github.com/screenagent/backend/shared/agent/agentdb"
	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/awsconfig"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/knowledge/retrieval"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/llm/provider"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/ratelimit"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
	"github.com/screenagent/backend/shared/sam"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
	"github.com/screenagent/backend/shared/tokens"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// Sample counts: enough for a stable p50 and a rough p99 within the 10-minute budget.
const (
	initSamples     = 5
	stepsPerPage    = 30
	stepsPerTask    = 40 // a task's steps 1, 10 and 40 are the request-unit figures
	runSteps        = 30
	stepsPerRun     = 4 // runs stop themselves on low action diversity; short runs stay clear of it
	assumedLLMDelay = 2 * time.Second
)

var pageSizes = []int{50_000, 200_000, 500_000}

// BenchmarkReport measures everything issue 17 asks for once and writes RESULTS.md. Run it with
// -benchtime=1x (`make bench` does); it reports figures and never fails on one.
func BenchmarkReport(b *testing.B) {
	start := time.Now()
	root, err := ddblocal.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := sam.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	r := &Report{Date: start, Machine: machine(), LLMLatency: assumedLLMDelay, ConfiguredMemory: configuredMemory(b, tmpl, "AgentInteractFunction")}
	r.RetentionMonths = 3 // finished tasks are kept 90 days (RetentionFinishedDays)

	r.Sizes, r.MinimalSize = measureSizes(b, root, tmpl)
	db := dynamotest.New(b)
	r.Inits, r.MinimalInit = measureInits(b, root, tmpl, db)
	r.InitPackages = packageInits(b, root, slowest(r))

	env := newStepEnv(b, db)
	// The cheap rows first: a slow machine that hits the timeout in the page rows still has them.
	r.Cached, r.CachedUnits = env.cachedFigures(b)
	for _, n := range pageSizes {
		r.Pages = append(r.Pages, env.interactFigures(b, n))
	}
	r.Units = env.taskUnits(b)
	r.Run, r.RunUnits = env.runFigures(b)
	r.Eval = readEval(b, root)
	r.Duration = time.Since(start)

	var out bytes.Buffer
	r.Markdown(&out)
	os.Stdout.Write(out.Bytes())
	if err := os.WriteFile(filepath.Join(root, "infra", "bench", "RESULTS.md"), out.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	if big := r.largest(); big.Samples > 0 {
		b.ReportMetric(float64(big.P50.Microseconds())/1000, "ms-p50-500K")
	}
}

// BenchmarkCachedStep measures the action cache's row alone (go test -bench=CachedStep
// -benchtime=1x ./infra/bench): a step served from the cache, its server work and request units.
func BenchmarkCachedStep(b *testing.B) {
	env := newStepEnv(b, dynamotest.New(b))
	t, u := env.cachedFigures(b)
	b.ReportMetric(float64(t.P50.Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(t.P99.Microseconds())/1000, "ms-p99")
	b.ReportMetric(u.Read, "RRU")
	b.ReportMetric(u.Write, "WRU")
}

func machine() string {
	model := ""
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d cores (%s), %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), model, runtime.Version())
}

func configuredMemory(b *testing.B, tmpl *sam.Template, id string) int {
	for _, fn := range tmpl.Functions() {
		if fn.LogicalID != id {
			continue
		}
		v, err := tmpl.ResolveString(fn.MemorySize, sam.Env{})
		if err == nil {
			var m int
			if _, err := fmt.Sscan(v, &m); err == nil {
				return m
			}
		}
	}
	b.Logf("no MemorySize for %s: assuming Lambda's default 128 MB", id)
	return 128
}

// llmFunctions call the LLM and may link its client.
var llmFunctions = []string{"agent-interact", "run-step"}

const minimalPkg = "infra/bench/minimal"

// measureSizes builds every function (and the minimal Lambda) as for Lambda.
func measureSizes(b *testing.B, root string, tmpl *sam.Template) ([]Size, int64) {
	dir := b.TempDir()
	var pkgs []string
	for _, fn := range tmpl.Functions() {
		pkgs = append(pkgs, "./"+fn.CodeURI)
	}
	pkgs = append(pkgs, "./"+minimalPkg)
	cmd := exec.Command("go", append([]string{"build", "-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w", "-o", dir + "/"}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build arm64: %v\n%s", err, out)
	}
	var sizes []Size
	var minimal int64
	for _, p := range pkgs {
		name := path.Base(p)
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasSuffix(p, minimalPkg) {
			minimal = st.Size()
			continue
		}
		limit := int64(LimitPlain)
		if slices.Contains(llmFunctions, name) {
			limit = LimitLLM
		}
		sizes = append(sizes, Size{Function: name, Bytes: st.Size(), Limit: limit})
	}
	slices.SortFunc(sizes, func(a, b Size) int { return strings.Compare(a.Function, b.Function) })
	return sizes, minimal
}

// slowest is the function whose cold start is the slowest against the minimal Lambda's.
func slowest(r *Report) string {
	worst := Init{}
	for _, in := range r.Inits {
		if in.Median > worst.Median {
			worst = in
		}
	}
	return worst.Function
}

// initLine is one line of GODEBUG=inittrace=1: "init <package> @<t> ms, <clock> ms clock, …".
var initLine = regexp.MustCompile(`^init (\S+) @[\d.]+ ms, ([\d.]+) ms clock`)

// packageInits builds function as for Lambda and runs it once with GODEBUG=inittrace=1 (without a
// Runtime API it exits after its initialization), and returns its package initializations,
// costliest first.
func packageInits(b *testing.B, root, function string) []PackageInit {
	if function == "" {
		return nil
	}
	bin := filepath.Join(b.TempDir(), "bootstrap")
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", bin, "./functions/"+function)
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build %s: %v\n%s", function, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, bin)
	run.Env = []string{"GODEBUG=inittrace=1"}
	out, _ := run.CombinedOutput() // it fails once initialized: there is no Runtime API to reach
	var inits []PackageInit
	for line := range strings.Lines(string(out)) {
		if m := initLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			msf, _ := strconv.ParseFloat(m[2], 64)
			inits = append(inits, PackageInit{Package: m[1], Clock: time.Duration(msf * float64(time.Millisecond))})
		}
	}
	slices.SortStableFunc(inits, func(a, c PackageInit) int { return cmp.Compare(c.Clock, a.Clock) })
	return inits
}

// measureInits cold-starts every function initSamples times, round robin so that load on the
// machine spreads over all of them, through the emulator with Lambda's build flags.
func measureInits(b *testing.B, root string, tmpl *sam.Template, db *dynamotest.DB) ([]Init, time.Duration) {
	const minimalID = "BenchMinimalFunction"
	withMinimal := *tmpl
	withMinimal.Resources = maps.Clone(tmpl.Resources)
	withMinimal.Resources[minimalID] = sam.Resource{LogicalID: minimalID, Type: "AWS::Serverless::Function",
		Properties: map[string]any{"CodeUri": minimalPkg + "/", "Handler": "bootstrap"}}
	emu, err := emulator.New(emulator.Config{
		Template:  &withMinimal,
		Root:      root,
		Env:       sam.Env{Resources: db.Tables},
		Overrides: map[string]string{"DYNAMODB_ENDPOINT": db.Endpoint},
		BuildDir:  b.TempDir(),
		// -trimpath is left out: it changes no instruction of the binary, and without it the
		// emulator's cached package builds serve (only the link differs).
		BuildFlags: []string{"-ldflags=-s -w"},
		Logger:     slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer emu.Close()
	ctx := context.Background()
	if err := emu.Build(ctx); err != nil {
		b.Fatal(err)
	}
	ids := map[string]string{minimalID: "minimal"}
	for _, fn := range tmpl.Functions() {
		ids[fn.LogicalID] = path.Base(fn.CodeURI)
	}
	samples := map[string][]time.Duration{}
	for i := 0; i <= initSamples; i++ {
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			d, err := emu.InitDuration(ctx, id)
			if err != nil {
				b.Fatalf("cold start %s: %v", id, err)
			}
			if i > 0 { // the first round only warms the page cache
				samples[ids[id]] = append(samples[ids[id]], d)
			}
		}
	}
	var inits []Init
	for name, ds := range samples {
		if name != "minimal" {
			inits = append(inits, Init{Function: name, Median: Percentile(ds, 50), Samples: len(ds)})
		}
	}
	return inits, Percentile(samples["minimal"], 50)
}

// timedLLM measures the time spent waiting for the LLM, to take it out of the server work.
type timedLLM struct {
	llm.Client
	mu    sync.Mutex
	wait  time.Duration
	calls int
}

func (t *timedLLM) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	res, err := t.Client.Complete(ctx, req)
	t.mu.Lock()
	t.wait += time.Since(start)
	t.calls++
	t.mu.Unlock()
	return res, err
}

// take returns the LLM wait and calls since the last take.
func (t *timedLLM) take() (time.Duration, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, c := t.wait, t.calls
	t.wait, t.calls = 0, 0
	return w, c
}

// stepEnv is the two step routes wired as their functions wire them, in process, on a DynamoDB
// client that records request units.
type stepEnv struct {
	db       *dynamotest.DB
	capacity *Capacity
	client   *dynamodb.Client
	fakeLLM  *llmtest.Server
	llm      *timedLLM
	interact http.Handler
	runStep  http.Handler
	runs     *runs.Service
	token    string
	tenant   string
	user     string
	o200k    tokenizer.Codec
}

func newStepEnv(b *testing.B, db *dynamotest.DB) *stepEnv {
	ctx := context.Background()
	for k, v := range db.Env {
		b.Setenv(k, v)
	}
	// The limits would refuse a benchmark's pace; the counter's write still happens.
	b.Setenv(ratelimit.EnvInteract, "1000000")
	b.Setenv(ratelimit.EnvRuns, "1000000")
	cfg, err := config.Load()
	if err != nil {
		b.Fatal(err)
	}
	awsCfg, err := awsconfig.Load(ctx, db.Endpoint, config.AWSCredentialsInEnv())
	if err != nil {
		b.Fatal(err)
	}
	e := &stepEnv{db: db, capacity: &Capacity{}}
	e.client = awsconfig.DynamoDB(awsCfg, db.Endpoint, e.capacity.Instrument)
	a := &app.App{Config: cfg, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), DynamoDB: e.client}

	e.fakeLLM = llmtest.New(b)
	chatClient, err := provider.New(provider.Options{BaseURL: e.fakeLLM.URL(), Model: "bench-model", APIKey: "bench-key"})
	if err != nil {
		b.Fatal(err)
	}
	e.llm = &timedLLM{Client: chatClient}
	if e.o200k, err = tokenizer.Get(tokenizer.O200kBase); err != nil {
		b.Fatal(err)
	}

	// A user and a token, as login makes them.
	hash, err := accounts.HashPassword("bench-password-123")
	if err != nil {
		b.Fatal(err)
	}
	users := accountsdb.New(db.Client, cfg.AccountsTable)
	if _, err := users.CreateUser(ctx, "bench@example.com", "Bench", hash); err != nil {
		b.Fatal(err)
	}
	svc, err := a.Auth()
	if err != nil {
		b.Fatal(err)
	}
	login, err := svc.Login(ctx, auth.LoginRequest{Email: "bench@example.com", Password: "bench-password-123", ClientIP: "127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	e.token, e.tenant, e.user = login.AccessToken, login.Tenant.ID, login.User.ID

	// agent-interact's wiring (functions/agent-interact/main.go).
	know, err := retrieval.New(a.Config, a.DynamoDB)
	if err != nil {
		b.Fatal(err)
	}
	policy, err := a.Retention()
	if err != nil {
		b.Fatal(err)
	}
	taskStore := tasksdb.New(a.DynamoDB, a.Config.TasksTable, policy.Tasks)
	chatStore := chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable, policy.Chat)
	engine := &agent.Engine{Tasks: taskStore, Chat: chatStore, Commit: &agentdb.Writer{Tasks: taskStore, Chat: chatStore, DB: a.DynamoDB}, Knowledge: know, LLM: e.llm, Model: "bench-model", Logger: a.Logger,
		Cache: &actioncache.Cache{Store: cachedb.New(a.DynamoDB, a.Config.TasksTable)}}
	if e.interact, err = a.Protect(ratelimit.ClassInteract, interactHandler(engine)); err != nil {
		b.Fatal(err)
	}

	// run-step's wiring (functions/run-step/main.go).
	store, err := runapi.NewStore(a)
	if err != nil {
		b.Fatal(err)
	}
	e.runs = &runs.Service{Store: store, LLM: e.llm, Model: "bench-model", Logger: a.Logger}
	if e.runStep, err = runapi.Protect(a, app.Mount("POST /agent/run/{runId}/step", runStepHandler(e.runs))); err != nil {
		b.Fatal(err)
	}
	e.capacity.Take()
	return e
}

// interactBody is the part of POST /api/agent/interact's body the bench sends.
type interactBody struct {
	URL              string `json:"url"`
	Query            string `json:"query"`
	DOM              string `json:"dom"`
	TaskID           string `json:"taskId,omitempty"`
	LastActionStatus string `json:"lastActionStatus,omitempty"`
}

// interactHandler decodes the body and calls the engine as the function's handler does (its
// field validation, a few length checks, is left out).
func interactHandler(engine *agent.Engine) http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, err := auth.Require(r.Context())
		if err != nil {
			return err
		}
		raw, err := httpapi.ReadJSONBody(r)
		if err != nil {
			return err
		}
		var body interactBody
		if err := httpapi.Unmarshal(raw, &body); err != nil {
			return err
		}
		req := agent.Request{Identity: id, URL: body.URL, Query: body.Query, DOM: body.DOM, TaskID: body.TaskID}
		if body.LastActionStatus != "" {
			req.Report = &tasks.Report{Status: body.LastActionStatus}
		}
		resp, err := engine.Interact(r.Context(), req)
		if err != nil {
			return err
		}
		httpapi.WriteData(w, http.StatusOK, resp)
		return nil
	})
}

type runStepBody struct {
	Snapshot json.RawMessage `json:"snapshot"`
}

func runStepHandler(svc *runs.Service) http.Handler {
	return runapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, err := auth.Require(r.Context())
		if err != nil {
			return err
		}
		runID, err := runapi.RunID(r)
		if err != nil {
			return err
		}
		raw, err := httpapi.ReadBody(r)
		if err != nil {
			return err
		}
		var body runStepBody
		if err := json.Unmarshal(raw, &body); err != nil {
			return err
		}
		snap, err := runs.DecodeSnapshot(body.Snapshot)
		if err != nil {
			return err
		}
		resp, err := svc.Step(r.Context(), runs.StepRequest{TenantID: id.TenantID, UserID: id.UserID, RunID: runID, Snapshot: snap})
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		return json.NewEncoder(w).Encode(resp)
	})
}

// serve sends one request and returns the server work (wall time less the LLM wait), the LLM
// calls and the decoded answer.
func (e *stepEnv) serve(b *testing.B, h http.Handler, method, target string, body []byte) (time.Duration, int, []byte) {
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.llm.take()
	start := time.Now()
	h.ServeHTTP(rec, req)
	elapsed := time.Since(start)
	wait, calls := e.llm.take()
	if rec.Code != http.StatusOK {
		b.Fatalf("%s %s: status %d: %s", method, target, rec.Code, rec.Body.String())
	}
	return elapsed - wait, calls, rec.Body.Bytes()
}

const interactReply = "<Thought>The first product matches the task.</Thought>\n<Action>click(1)</Action>"

// interactStep runs one step of taskID (empty starts a task) on dom; it returns the work, the
// task's id and the prompt the LLM received.
func (e *stepEnv) interactStep(b *testing.B, taskID, dom string) (time.Duration, string, []byte) {
	e.fakeLLM.SetDefault(interactReply)
	work, resp, raw := e.interactAs(b, "Add the cheapest steel water bottle to the cart", taskID, dom)
	return work, resp.TaskID, raw
}

// interactAs runs one step of a task on dom and returns the work, the answer and the request.
func (e *stepEnv) interactAs(b *testing.B, query, taskID, dom string) (time.Duration, agent.Response, []byte) {
	body := interactBody{URL: "https://shop.example/catalog", Query: query, DOM: dom, TaskID: taskID}
	if taskID != "" {
		body.LastActionStatus = "success"
	}
	raw, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	work, _, answer := e.serve(b, e.interact, http.MethodPost, "/api/agent/interact", raw)
	var resp struct {
		Data agent.Response `json:"data"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		b.Fatal(err)
	}
	return work, resp.Data, raw
}

// cachedRepeats is how often the bench repeats the cached task.
const cachedRepeats = 5

// cachedFigures completes a three-step task on a 50K page once with the model, then repeats it
// (its targets are unique on the page: a row's "Add to cart" button has look-alikes, and a
// click on it is never served):
// every repeated step is served from the action cache. It returns their work and the units of a
// continuing cached step.
func (e *stepEnv) cachedFigures(b *testing.B) (Timing, StepUnits) {
	const query = "Open the second bottle, then the cart"
	replies := []string{"<Thought>Open it.</Thought>\n<Action>click(8)</Action>", "<Thought>Open the cart.</Thought>\n<Action>click(3)</Action>", "<Thought>Done.</Thought>\n<Action>finish()</Action>"}
	var works []time.Duration
	var units StepUnits
	for run := 0; run <= cachedRepeats; run++ {
		taskID := ""
		for i, reply := range replies {
			if run == 0 {
				e.fakeLLM.Reply(reply)
			}
			// Each action changes the page (its counters): an action that changed nothing at all
			// failed, and is not what a task repeats.
			work, resp, _ := e.interactAs(b, query, taskID, benchPage(50_000, i+1))
			taskID = resp.TaskID
			calls := e.capacity.Take()
			if run == 0 {
				continue
			}
			if resp.Metrics.Cache != actioncache.Hit {
				b.Fatalf("repeat %d step %d: metrics.cache = %q, want hit", run, i+1, resp.Metrics.Cache)
			}
			works = append(works, work)
			if run == 1 && i == 1 {
				units = e.account(b, 2, calls)
			}
		}
	}
	return Timing{P50: Percentile(works, 50), P99: Percentile(works, 99), Samples: len(works)}, units
}

// interactFigures runs stepsPerPage steps on pages of n characters.
func (e *stepEnv) interactFigures(b *testing.B, n int) Page {
	pg := Page{Chars: n}
	var works []time.Duration
	taskID := ""
	for i := range stepsPerPage {
		if i%stepsPerTask == 0 {
			taskID = ""
		}
		work, id, raw := e.interactStep(b, taskID, benchPage(n, i))
		taskID = id
		works = append(works, work)
		calls := e.capacity.Take()
		if i == 1 { // a continuing step: the figures of a typical step
			pg.RequestBytes = len(raw)
			pg.Units = e.account(b, 2, calls)
			for _, it := range pg.Units.Items {
				if it.Kind == "Put" {
					pg.StoredBytes += it.Bytes
				}
				if strings.HasPrefix(it.Label, "snapshot") {
					pg.Snapshot = it.Bytes
				}
			}
			pg.PromptEst, pg.PromptExact, pg.PageTokens = e.promptTokens(b, n)
		}
	}
	pg.Timing = Timing{P50: Percentile(works, 50), P99: Percentile(works, 99), Samples: len(works)}
	return pg
}

// promptTokens counts the last prompt both ways; page tokens are the estimator's count of the
// page as the engine cut it to its budget.
func (e *stepEnv) promptTokens(b *testing.B, n int) (est, exact, pageTokens int) {
	reqs := e.fakeLLM.Requests()
	last := reqs[len(reqs)-1]
	for _, m := range last.Messages {
		est += tokens.Estimate(m.Content)
		c, err := e.o200k.Count(m.Content)
		if err != nil {
			b.Fatal(err)
		}
		exact += c
	}
	rendered := page.Render(pagemodel.Parse(benchPage(n, 1)), page.Options{Query: "Add the cheapest steel water bottle to the cart"})
	return est, exact, rendered.Tokens
}

// taskUnits runs one task of stepsPerTask steps on 50K pages and keeps the units of steps 1, 10
// and 40, with the item-by-item account of the last.
func (e *stepEnv) taskUnits(b *testing.B) []StepUnits {
	var out []StepUnits
	taskID := ""
	for i := 1; i <= stepsPerTask; i++ {
		_, id, _ := e.interactStep(b, taskID, benchPage(50_000, 1000+i))
		taskID = id
		calls := e.capacity.Take()
		if i == 1 || i == 10 || i == stepsPerTask {
			out = append(out, e.account(b, i, calls))
		}
	}
	return out
}

// account sums a step's calls and explains its transaction item by item. The item sizes are read
// back after the step, with units the bench does not count.
func (e *stepEnv) account(b *testing.B, step int, calls []Call) StepUnits {
	u := StepUnits{Step: step, Calls: calls}
	for _, c := range calls {
		u.Read += c.Read
		u.Write += c.Write
		for _, it := range c.Items {
			size := it.Size
			if it.Kind == "Update" {
				out, err := e.db.Client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &it.Table, Key: it.Key})
				if err != nil {
					b.Fatal(err)
				}
				size = ItemSize(out.Item)
			}
			units := WriteUnits(size, true)
			if it.Kind == "ConditionCheck" {
				units = 0
			}
			u.Items = append(u.Items, ItemAccount{Label: itemLabel(it), Kind: it.Kind, Bytes: size, Units: units})
		}
	}
	return u
}

// itemLabel names an item by its table and the kind its sort key says.
func itemLabel(it TransactItem) string {
	sk := ""
	if v, ok := it.Key["SK"].(*types.AttributeValueMemberS); ok {
		sk = v.Value
	}
	kind, _, _ := strings.Cut(sk, "#")
	labels := map[string]string{"STEP": "step", "TASK": "task", "MSG": "message", "SNAP": "snapshot", "DEBUG": "debug entry",
		"IDEM": "idempotency record", "SESSION": "session", "RUN": "run"}
	if l, ok := labels[kind]; ok {
		return l + " (" + tableKind(it.Table) + ")"
	}
	return sk + " (" + tableKind(it.Table) + ")"
}

func tableKind(name string) string {
	for _, t := range []string{"Tasks", "Sessions", "Messages", "Accounts", "RateLimits", "Knowledge"} {
		if strings.Contains(name, t) {
			return t
		}
	}
	return name
}

// runFigures times run-API steps on a full snapshot, in short runs.
func (e *stepEnv) runFigures(b *testing.B) (Timing, StepUnits) {
	var works []time.Duration
	var units StepUnits
	runID := ""
	for i := range runSteps {
		if i%stepsPerRun == 0 {
			start, err := e.runs.Start(context.Background(), runs.StartRequest{TenantID: e.tenant, UserID: e.user, Task: "Add the cheapest steel water bottle to the cart", Mode: runs.ModeAutonomous})
			if err != nil {
				b.Fatal(err)
			}
			runID = start.RunID
			e.capacity.Take()
		}
		e.fakeLLM.Reply(runReply(i))
		body, err := json.Marshal(map[string]any{"snapshot": benchSnapshot(i)})
		if err != nil {
			b.Fatal(err)
		}
		work, _, _ := e.serve(b, e.runStep, http.MethodPost, "/agent/run/"+runID+"/step", body)
		works = append(works, work)
		calls := e.capacity.Take()
		if i == 2 {
			units = e.account(b, 3, calls)
		}
	}
	return Timing{P50: Percentile(works, 50), P99: Percentile(works, 99), Samples: len(works)}, units
}

// runReply varies tool and target so that no loop rule stops the run.
func runReply(i int) string {
	id := fmt.Sprintf("e%d", 1+(i*7)%100)
	if i%2 == 0 {
		return `{"type":"tool_call","thought":"Open the next product.","tool":{"name":"click","arguments":{"id":"` + id + `"}}}`
	}
	return `{"type":"tool_call","thought":"Search for it.","tool":{"name":"type","arguments":{"id":"` + id + `","text":"steel bottle ` + fmt.Sprint(i) + `"}}}`
}

// benchSnapshot is a run-API snapshot at its limits: 100 elements and ~6,000 characters of text.
func benchSnapshot(variant int) map[string]any {
	var els []map[string]any
	for i := 1; i <= 100; i++ {
		el := map[string]any{"id": fmt.Sprintf("e%d", i), "tag": "button", "text": fmt.Sprintf("Product %d, steel water bottle, add to cart", i),
			"bbox": map[string]float64{"x": 10, "y": float64(40 * i), "width": 200, "height": 32}}
		if i%5 == 0 {
			el["tag"], el["type"], el["placeholder"] = "input", "text", "Search the catalog"
		}
		els = append(els, el)
	}
	line := fmt.Sprintf("Step %d. Keeps drinks cold for 24 hours and hot for 12; dishwasher-safe lid.\n", variant)
	text := strings.Repeat(line, runs.MaxVisibleText/len(line)+1)[:runs.MaxVisibleText]
	return map[string]any{"url": "https://shop.example/catalog", "title": "Catalog", "visibleText": text, "elements": els, "timestamp": 1700000000000}
}

// benchPage is a simplified DOM of exactly n characters: navigation, a search form, product cards
// with links, ratings and buttons, article text and a table, varied by variant so each step's page
// (and snapshot) differs as a real page does between actions.
func benchPage(n, variant int) string {
	const tail = `</main></body></html>`
	var b strings.Builder
	fmt.Fprintf(&b, `<html><head><title>Catalog, page %d</title></head><body><nav><a id="1" href="/">Home</a><a id="2" href="/deals">Deals</a><a id="3" href="/cart">Cart (%d)</a></nav>`, variant, variant%7)
	b.WriteString(`<form><input id="4" type="search" placeholder="Search products" value=""/><button id="5" type="submit">Search</button></form><main><h1>Water bottles</h1>`)
	id := 6
	for i := 0; b.Len() < n-len(tail)-700; i++ {
		switch i % 4 {
		case 3:
			fmt.Fprintf(&b, `<article><h2>Buying guide %d</h2><p>Steel bottles keep drinks cold for 24 hours; look for a leak-proof lid, a wide mouth for ice and a powder coat that resists scratches. Model %d weighs %d grams.</p></article>`, i, i+variant, 300+i%200)
		case 2:
			fmt.Fprintf(&b, `<table><tr><th>Size</th><th>Price</th></tr><tr><td>%d ml</td><td>$%d.%02d</td></tr></table>`, 350+i%5*150, 12+i%40, (i*7+variant)%100)
		default:
			fmt.Fprintf(&b, `<div role="listitem"><a id="%d" href="/p/%d">Steel water bottle %d, %d ml</a><span aria-label="%d.%d out of 5 stars"></span><span>$%d.99</span><button id="%d" type="button">Add to cart</button></div>`,
				id, i, i, 500+i%4*250, 3+i%2, (i+variant)%10, 10+i%90, id+1)
			id += 2
		}
	}
	b.WriteString(strings.Repeat(" ", n-b.Len()-len(tail)))
	b.WriteString(tail)
	return b.String()
}

// readEval reads `make eval`'s totals; nil when it has not run.
func readEval(b *testing.B, root string) *EvalTotals {
	data, err := os.ReadFile(filepath.Join(root, ".local", "eval", "results.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		b.Fatal(err)
	}
	var doc struct {
		Totals *EvalTotals `json:"totals"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		b.Logf("%s is not make eval's results: %v", ".local/eval/results.json", err)
		return nil
	}
	return doc.Totals
}
