package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/emulator"
)

func TestGateAnswers503UntilOpen(t *testing.T) {
	g := newGate("starting DynamoDB Local")
	g.setPhase("building functions (3 of 22)")
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, httptest.NewRequest("GET", "/api/health", nil))
	var body startingBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "5" || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %d Retry-After %q Content-Type %q, want 503, 5, application/json", rec.Code, rec.Header().Get("Retry-After"), rec.Header().Get("Content-Type"))
	}
	if body.Status != "starting" || body.Code != "SERVICE_UNAVAILABLE" || body.Success || body.Phase != "building functions (3 of 22)" ||
		!strings.Contains(body.Message, "3 of 22") || body.RetryAfter != 5 {
		t.Errorf("got body %+v, want a starting SERVICE_UNAVAILABLE naming the phase", body)
	}

	g.open(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	rec = httptest.NewRecorder()
	g.ServeHTTP(rec, httptest.NewRequest("GET", "/api/health", nil))
	if rec.Code != http.StatusTeapot {
		t.Errorf("after open: got %d, want the API's answer %d", rec.Code, http.StatusTeapot)
	}
}

func TestStepSummary(t *testing.T) {
	cases := []struct{ name, line, want string }{
		{"interact step",
			`{"time":"t","level":"INFO","msg":"request","route":"POST /api/agent/interact","status":200,"durationMs":812,"taskId":"7c1e0a52-3f1b-4a0e-9d59-1c2f0f5e8b33","step":2,"action":"click(2)","taskStatus":"active"}`,
			"step  task 7c1e0a52 #2  click(2) -> active  (200, 812 ms)"},
		{"run step",
			`{"msg":"request","status":200,"durationMs":40,"runId":"9f0c2a9e-1b5d-4c3e-8a7f-6d5e4c3b2a10","step":3,"action":"execute_tool"}`,
			"step  run 9f0c2a9e #3  execute_tool  (200, 40 ms)"},
		{"other request", `{"msg":"request","status":200,"route":"GET /api/health"}`, ""},
		{"not a request line", `{"msg":"built","action":"x","step":1}`, ""},
		{"failed step has no action", `{"msg":"request","status":500,"code":"LLM_ERROR"}`, ""},
		{"warning", `{"level":"WARN","msg":"LLM not configured: agent steps will fail with LLM_ERROR","error":"llm not configured (openai): missing OPENAI_API_KEY"}`,
			"warn LLM not configured: agent steps will fail with LLM_ERROR llm not configured (openai): missing OPENAI_API_KEY"},
		{"plain text", `panic: something`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := stepSummary([]byte(tc.line)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStepLogSplitsLogFromTerminal(t *testing.T) {
	var raw, terminal bytes.Buffer
	l := &stepLog{raw: &raw, dst: &terminal}
	in := "plain line\n" + `{"msg":"request","status":200,"durationMs":1,"taskId":"abc","step":1,"action":"finish()","taskStatus":"completed"}` + "\n" +
		`{"level":"ERROR","msg":"store failed","route":"GET /api/session","error":"throttled"}` + "\n"
	if n, err := l.Write([]byte(in)); err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	if raw.String() != in {
		t.Errorf("log file got %q, want every line unchanged %q", raw.String(), in)
	}
	want := "step  task abc #1  finish() -> completed  (200, 1 ms)\nerror GET /api/session store failed throttled\n"
	if terminal.String() != want {
		t.Errorf("terminal got %q, want %q", terminal.String(), want)
	}
}

// A taken port fails at once with a command that uses free ports, for each address and for
// DynamoDB Local.
func TestListenCheckedSuggestsFreePorts(t *testing.T) {
	hold := func() int { // a port held until the test ends: never suggested
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l.Addr().(*net.TCPAddr).Port
	}
	suggested := regexp.MustCompile(`make run (ADDR=127\.0\.0\.1:(\d+))? ?(WS_ADDR=127\.0\.0\.1:(\d+))? ?(DYNAMODB_PORT=(\d+))?`)
	tests := []struct {
		name                        string
		apiBusy, wsBusy, dynamoBusy bool
	}{
		{"API address taken", true, false, false},
		{"second address taken", false, true, false},
		{"DynamoDB port taken", false, false, true},
		{"all taken", true, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api, ws, dynamo := hold(), hold(), hold()
			taken := map[int]bool{api: true, ws: true, dynamo: true}
			if !tc.apiBusy {
				api = freeAfter("127.0.0.1", api, taken)
				taken[api] = true
			}
			if !tc.wsBusy {
				ws = freeAfter("127.0.0.1", ws, taken)
				taken[ws] = true
			}
			if !tc.dynamoBusy {
				dynamo = freeAfter("", dynamo, taken)
			}
			lns, err := listenChecked(dynamo,
				listenSpec{addr: fmt.Sprintf("127.0.0.1:%d", api), what: "the API", makeVar: "ADDR", flag: "--addr"},
				listenSpec{addr: fmt.Sprintf("127.0.0.1:%d", ws), what: "the WebSocket API", makeVar: "WS_ADDR", flag: "--ws-addr"})
			if err == nil {
				for _, l := range lns {
					l.Close()
				}
				t.Fatal("got listeners, want an error naming the taken port")
			}
			m := suggested.FindStringSubmatch(err.Error())
			if m == nil || (m[1] != "") != tc.apiBusy || (m[3] != "") != tc.wsBusy || (m[5] != "") != tc.dynamoBusy {
				t.Fatalf("got %q, want a make run command choosing exactly the taken ports", err)
			}
			seen := map[string]bool{}
			for _, p := range []string{m[2], m[4], m[6]} {
				if p == "" {
					continue
				}
				if seen[p] {
					t.Errorf("port %s suggested twice in %q", p, err)
				}
				seen[p] = true
				n, _ := strconv.Atoi(p)
				if free("", n) != nil {
					t.Errorf("suggested port %d is not free", n)
				}
			}
			// The addresses that were free are free again: nothing is left listening.
			if !tc.apiBusy && free("127.0.0.1", api) != nil {
				t.Errorf("the API's free port %d is still held after the failure", api)
			}
		})
	}
	lns, err := listenChecked(freeAfter("", hold(), nil), listenSpec{addr: "127.0.0.1:0", what: "the API", makeVar: "ADDR", flag: "--addr"})
	if err != nil || len(lns) != 1 {
		t.Fatalf("free ports: got %d listeners, %v; want 1, nil", len(lns), err)
	}
	lns[0].Close()
}

func TestBuildReporter(t *testing.T) {
	var out bytes.Buffer
	g := newGate("x")
	r := newBuildReporter(&out, g, 2)
	r.built(emulator.Built{Function: "AuthLoginFunction", Done: 1, Total: 2, Duration: 1500 * time.Millisecond})
	r.built(emulator.Built{Function: "HealthFunction", Done: 2, Total: 2, Duration: time.Second, Err: errors.New("exit status 1")})
	r.finish()
	got := out.String()
	for _, want := range []string{"building 2 functions", "built   1/2  AuthLoginFunction", "1.5s", "FAILED  2/2  HealthFunction", "functions built in"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if g.phase != "building functions (2 of 2)" {
		t.Errorf("gate phase %q, want building functions (2 of 2)", g.phase)
	}
}

func TestDataNotice(t *testing.T) {
	cases := []struct {
		dir   string
		fresh bool
		want  string
	}{
		{"", false, "in memory"},
		{"/repo/.local/dynamodb", false, "kept in /repo/.local/dynamodb; `make run FRESH=1` starts empty"},
		{"/repo/.local/dynamodb", true, "Starting fresh"},
	}
	for _, tc := range cases {
		if got := dataNotice(tc.dir, tc.fresh); !strings.Contains(got, tc.want) {
			t.Errorf("dataNotice(%q, %v) = %q, want it to contain %q", tc.dir, tc.fresh, got, tc.want)
		}
	}
}

func TestDynamoLogShowsInstallLines(t *testing.T) {
	var file, terminal bytes.Buffer
	w := &prefixTee{all: &file, some: &terminal, prefix: []byte("ddblocal: ")}
	in := "ddblocal: installing DynamoDB Local (npm ci in x)\nInitializing DynamoDB Local with the following configuration:\n"
	if _, err := w.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if file.String() != in {
		t.Errorf("file got %q, want everything %q", file.String(), in)
	}
	if want := "ddblocal: installing DynamoDB Local (npm ci in x)\n"; terminal.String() != want {
		t.Errorf("terminal got %q, want only the install line %q", terminal.String(), want)
	}
}

// Quiet by default: the launcher's own info lines go only to the file, warnings to the terminal
// too; verbose shows everything in both.
func TestRunLogs(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprintf("verbose=%v", verbose), func(t *testing.T) {
			var terminal bytes.Buffer
			logs, err := openRunLogs(t.TempDir(), "3100", verbose, &terminal)
			if err != nil {
				t.Fatal(err)
			}
			logger := logs.logger()
			logger.Info("built", "function", "HealthFunction")
			logger.Warn("env.json variable is not declared in the template", "variable", "X")
			logs.Close()
			file, err := os.ReadFile(logs.path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(file), `"msg":"built"`) || !strings.Contains(string(file), `"level":"WARN"`) {
				t.Errorf("log file %q, want both lines as JSON", file)
			}
			if got := strings.Contains(terminal.String(), "built"); got != verbose {
				t.Errorf("terminal %q shows the info line: %v, want %v", terminal.String(), got, verbose)
			}
			if !strings.Contains(terminal.String(), "env.json variable is not declared") {
				t.Errorf("terminal %q, want the warning", terminal.String())
			}
			if !strings.Contains(logs.notice("/"), "run-3100.log") {
				t.Errorf("notice %q, want the log file's path", logs.notice("/"))
			}
		})
	}
}
