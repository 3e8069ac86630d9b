// Package suite runs the proving ground: the scenario sites, the model (the oracle, or a real
// one behind a counting proxy), the backend stack and Chromium; every scenario through the thin
// client on each API asked for; then the table, the Markdown report with screenshots, and
// results.json.
package suite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/screenagent/backend/infra/eval/oracle"
	"github.com/screenagent/backend/infra/eval/scenario"
	"github.com/screenagent/backend/infra/eval/sites"
	"github.com/screenagent/backend/infra/eval/stack"
	"github.com/screenagent/backend/infra/thinclient/browser"
	"github.com/screenagent/backend/infra/thinclient/drive"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/search/searchtest"
	"github.com/screenagent/backend/shared/trust"
)

// Model says which model the stack's functions call.
type Model struct {
	// BaseURL and Key of a real OpenAI-compatible model; empty Key means the oracle.
	BaseURL string
	Key     string
	Name    string
	// Prices in USD per million tokens, for the cost estimate.
	PriceIn, PriceOut float64
}

// Oracle reports whether the model is the oracle.
func (m Model) Oracle() bool { return m.Key == "" }

// The limits of a slow model's run (Config.Slow): a function may run as long as Lambda allows,
// its LLM call nearly as long; a step waits for both and the browser, a case for many steps.
const (
	slowFunction = 15 * time.Minute
	slowLLMCall  = 14 * time.Minute
	slowStep     = 20 * time.Minute
	slowCase     = 3 * time.Hour
)

// Config configures a run of the suite.
type Config struct {
	Cases []scenario.Case
	Model Model
	// DynamoDBEndpoint is a running DynamoDB Local to use; empty starts one.
	DynamoDBEndpoint string
	// Batch makes the thin client declare actionBatch: it runs several actions per answer.
	Batch bool
	// MaxSteps and CaseTimeout bound each case.
	MaxSteps    int
	CaseTimeout time.Duration
	// Slow raises every time limit of the stack for a slow model (a local model on a CPU, or
	// replies typed by hand): the functions', the LLM call's, each step's and each case's.
	Slow bool
	// Progress receives a line per case and the stack's start; Log the stack's own logs.
	Progress io.Writer
	Log      io.Writer
	// Repeat runs every case a second time after the first pass (the action cache's repeat pass).
	Repeat bool
}

// Result is one case's outcome (a scenario on one API).
type Result struct {
	Name               string `json:"name"`
	Level              int    `json:"level"`
	API                string `json:"api"`
	Success            bool   `json:"success"`
	ExpectedFail       bool   `json:"expectedFail"`
	ExpectedFailReason string `json:"expectedFailReason"`
	Steps              int    `json:"steps"`
	LLMCalls           int    `json:"llmCalls"`
	CachedSteps        int    `json:"cachedSteps"`
	// Actions counts the actions the client was given over all steps (a batch counts each).
	Actions          int     `json:"actions"`
	PromptTokens     int     `json:"promptTokens"`
	CompletionTokens int     `json:"completionTokens"`
	WallMs           int64   `json:"wallMs"`
	CostUSD          float64 `json:"costUSD"`
	Reason           string  `json:"reason"`

	Transcript drive.Transcript `json:"-"`
}

// Unexpected reports a result that differs from what the expected-failures table says.
func (r Result) Unexpected() bool { return r.Success == r.ExpectedFail }

// Totals sum the results.
type Totals struct {
	Steps            int     `json:"steps"`
	LLMCalls         int     `json:"llmCalls"`
	CallsPerStep     float64 `json:"callsPerStep"`
	Actions          int     `json:"actions"`
	ActionsPerStep   float64 `json:"actionsPerStep"`
	StepsPerTask     float64 `json:"stepsPerTask"`
	PromptTokens     int     `json:"promptTokens"`
	CompletionTokens int     `json:"completionTokens"`
	CostUSD          float64 `json:"costUSD"`
}

// Report is a whole run, in the shape of results.json.
type Report struct {
	GeneratedAt time.Time `json:"generatedAt"`
	Model       string    `json:"model"`
	Oracle      bool      `json:"oracle"`
	Scenarios   []Result  `json:"scenarios"`
	Totals      Totals    `json:"totals"`
	// Repeat is the repeat pass: the same cases again, by the same tenant, after the first pass.
	Repeat       []Result      `json:"repeat,omitempty"`
	RepeatTotals *RepeatTotals `json:"repeatTotals,omitempty"`
}

// RepeatTotals compare the repeat pass with the first: pass rates, the share of steps served
// from the action cache, and LLM calls per step.
type RepeatTotals struct {
	Cases         int     `json:"cases"`
	FirstPassed   int     `json:"firstPassed"`
	Passed        int     `json:"passed"`
	Steps         int     `json:"steps"`
	CachedSteps   int     `json:"cachedSteps"`
	CachedShare   float64 `json:"cachedShare"`
	LLMCalls      int     `json:"llmCalls"`
	CallsPerStep  float64 `json:"callsPerStep"`
	FirstPerStep  float64 `json:"firstCallsPerStep"`
	WallMs        int64   `json:"wallMs"`
	FirstPassWall int64   `json:"firstWallMs"`
}

// Failures are the cases expected to pass that failed.
func (r *Report) Failures() []Result {
	var out []Result
	for _, s := range r.Scenarios {
		if !s.Success && !s.ExpectedFail {
			out = append(out, s)
		}
	}
	for _, s := range r.Repeat {
		if !s.Success && !s.ExpectedFail {
			s.Name += " (repeat)"
			out = append(out, s)
		}
	}
	return out
}

// functions are the routes the thin client calls.
var functions = []string{"auth-login", "agent-interact", "run-start", "run-step", "run-answer"}

// Run runs the suite. Its error is about the harness (a stack that did not start); scenario
// failures are in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	progress := cmp.Or[io.Writer](cfg.Progress, io.Discard)
	cases := cfg.Cases
	if len(cases) == 0 {
		return nil, errors.New("no scenario matches")
	}
	s, err := sites.Start()
	if err != nil {
		return nil, err
	}
	defer s.Close()

	var model http.Handler = oracle.Handler()
	if !cfg.Model.Oracle() {
		if model, err = Proxy(cfg.Model.BaseURL); err != nil {
			return nil, fmt.Errorf("model proxy: %w", err)
		}
	}
	meter := NewMeter(model)
	llmURL, stopLLM, err := serve(meter)
	if err != nil {
		return nil, err
	}
	defer stopLLM()

	// The open web is a fake Tavily API that knows the sites' Web: the engine's searches go there.
	web := searchtest.Start(searchtest.Key)
	defer web.Close()
	for _, q := range sites.Web {
		web.Add(q.Query, q.Results...)
	}

	fmt.Fprintln(progress, "eval: starting the stack (DynamoDB Local, tables, functions)")
	key := cmp.Or(cfg.Model.Key, "oracle")
	env := map[string]string{
		"OPENAI_BASE_URL": llmURL + "/v1", "OPENAI_API_KEY": key, "OPENAI_MODEL": cfg.Model.Name,
		"LLM_PROVIDER": "openai", "OPENAI_API_KEY_SECRET_ARN": "",
		"TAVILY_BASE_URL": web.URL(), "TAVILY_API_KEY": searchtest.Key, "TAVILY_API_KEY_SECRET_ARN": "",
		// The suite's steps come faster than a person's; the tenant limits are not under test here.
		"RATE_LIMIT_INTERACT": "100000", "RATE_LIMIT_RUNS": "100000",
		// The log file keeps the debug lines too: why the action cache missed a step is one.
		config.EnvLogLevel: "DEBUG",
	}
	var fnTimeout time.Duration
	if cfg.Slow {
		env[config.EnvLLMTimeout] = strconv.Itoa(int(slowLLMCall.Seconds()))
		fnTimeout = slowFunction
	}
	st, err := stack.Start(ctx, stack.Options{DynamoDBEndpoint: cfg.DynamoDBEndpoint, Log: cfg.Log, Functions: functions, Env: env, FunctionTimeout: fnTimeout})
	if err != nil {
		return nil, fmt.Errorf("start the stack: %w", err)
	}
	defer st.Close()
	api, err := drive.Login(ctx, st.URL, stack.Email, stack.Password)
	if err != nil {
		return nil, err
	}
	// Waits on the API's Retry-After belong with the stack's logs, not the one line per case.
	api.Waiter.Notify = cmp.Or[io.Writer](cfg.Log, io.Discard)
	b, err := browser.Launch(ctx, browser.Options{HostResolverRules: "MAP *.test 127.0.0.1", Log: cfg.Log})
	if err != nil {
		return nil, err
	}
	defer b.Close()

	rep := &Report{GeneratedAt: time.Now().UTC(), Model: cfg.Model.Name, Oracle: cfg.Model.Oracle()}
	for _, c := range cases {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r := runCase(ctx, cfg, c, s, api, b, meter)
		fmt.Fprintf(progress, "eval: %-18s %-8s %s (%d steps, %d LLM calls, %.1fs)%s\n", r.Name, r.API, verdict(r), r.Steps, r.LLMCalls, float64(r.WallMs)/1000, suffix(r.Reason))
		rep.Scenarios = append(rep.Scenarios, r)
	}
	rep.total()
	if cfg.Repeat {
		for _, c := range cases {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r := runCase(ctx, cfg, c, s, api, b, meter)
			fmt.Fprintf(progress, "eval: repeat %-11s %-8s %s (%d steps, %d from the cache, %d LLM calls, %.1fs)%s\n", r.Name, r.API, verdict(r), r.Steps, r.CachedSteps, r.LLMCalls, float64(r.WallMs)/1000, suffix(r.Reason))
			rep.Repeat = append(rep.Repeat, r)
		}
		rep.totalRepeat()
	}
	return rep, nil
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

func runCase(ctx context.Context, cfg Config, c scenario.Case, s *sites.Server, api *drive.API, b *browser.Browser, meter *Meter) Result {
	r := Result{Name: c.Name, Level: c.Level, API: string(c.API), ExpectedFail: c.ExpectedFail != "", ExpectedFailReason: c.ExpectedFail}
	caseTimeout, stepTimeout := cmp.Or(cfg.CaseTimeout, 4*time.Minute), time.Duration(0)
	if cfg.Slow {
		caseTimeout, stepTimeout = cmp.Or(cfg.CaseTimeout, slowCase), slowStep
	}
	cctx, cancel := context.WithTimeout(ctx, caseTimeout)
	defer cancel()
	s.Reset()
	before, start := meter.Usage(), time.Now()
	tab, err := b.NewTab(cctx)
	if err != nil {
		r.Reason = "browser: " + err.Error()
		return r
	}
	defer tab.Close()
	user := c.User
	task := drive.Task{
		Text: c.Task(s), StartURL: c.Start(s), Mode: c.Mode, MaxSteps: cmp.Or(c.MaxSteps, cfg.MaxSteps, 20), StepTimeout: stepTimeout, Batch: cfg.Batch,
		User: func(q string) (string, bool) {
			if user == nil {
				s.UserAnswered(q, "", false)
				return "", false
			}
			reply, ok := user(q)
			s.UserAnswered(q, reply, ok)
			return reply, ok
		},
	}
	if c.Types != nil {
		task.Fill = func(q string, _ trust.UserRequest) map[string]string {
			s.UserAnswered(q, "(typed into the extension's own fields)", true)
			return c.Types
		}
	}
	var tr drive.Transcript
	if c.API == scenario.Run {
		tr = drive.Run(cctx, api, tab, task)
	} else {
		tr = drive.Interact(cctx, api, tab, task)
	}
	if tr.End == drive.Finished {
		s.ReportAnswer(tr.Answer)
	}
	used := meter.Usage().minus(before)
	r.Transcript = tr
	r.WallMs = time.Since(start).Milliseconds()
	r.Steps, r.LLMCalls, r.PromptTokens, r.CompletionTokens = len(tr.Steps), used.Calls, used.PromptTokens, used.CompletionTokens
	for _, st := range tr.Steps {
		r.Actions += st.Actions
		if st.Cached {
			r.CachedSteps++
		}
	}
	r.CostUSD = (float64(used.PromptTokens)*cfg.Model.PriceIn + float64(used.CompletionTokens)*cfg.Model.PriceOut) / 1e6
	checkErr := c.Check(s.State())
	r.Success = checkErr == nil
	switch {
	case r.Success:
	case tr.End != drive.Finished:
		r.Reason = fmt.Sprintf("%s: %s", tr.End, tr.Reason)
	default:
		r.Reason = checkErr.Error()
		if tr.Answer != "" {
			r.Reason += fmt.Sprintf(" (the agent finished: %q)", tr.Answer)
		}
	}
	return r
}

func (rep *Report) total() {
	t := &rep.Totals
	for _, r := range rep.Scenarios {
		t.Steps += r.Steps
		t.LLMCalls += r.LLMCalls
		t.Actions += r.Actions
		t.PromptTokens += r.PromptTokens
		t.CompletionTokens += r.CompletionTokens
		t.CostUSD += r.CostUSD
	}
	if t.Steps > 0 {
		t.CallsPerStep = float64(t.LLMCalls) / float64(t.Steps)
		t.ActionsPerStep = float64(t.Actions) / float64(t.Steps)
	}
	if n := len(rep.Scenarios); n > 0 {
		t.StepsPerTask = float64(t.Steps) / float64(n)
	}
}

func (rep *Report) totalRepeat() {
	t := &RepeatTotals{Cases: len(rep.Repeat), FirstPerStep: rep.Totals.CallsPerStep}
	for _, r := range rep.Scenarios {
		t.FirstPassWall += r.WallMs
		if r.Success {
			t.FirstPassed++
		}
	}
	for _, r := range rep.Repeat {
		t.Steps += r.Steps
		t.CachedSteps += r.CachedSteps
		t.LLMCalls += r.LLMCalls
		t.WallMs += r.WallMs
		if r.Success {
			t.Passed++
		}
	}
	if t.Steps > 0 {
		t.CachedShare = float64(t.CachedSteps) / float64(t.Steps)
		t.CallsPerStep = float64(t.LLMCalls) / float64(t.Steps)
	}
	rep.RepeatTotals = t
}

// serve serves h on a free loopback port.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}
