package emulator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/screenagent/backend/infra/waitbuf"
	"github.com/screenagent/backend/shared/sam"
)

const internalError = `{"message":"Internal Server Error"}`

func TestFunctionErrors(t *testing.T) {
	_, url, logs := startEmulator(t, Config{})
	tests := []struct {
		path   string
		status int
		body   string
	}{
		{"/fail", http.StatusBadGateway, internalError},
		{"/fail?mode=panic", http.StatusBadGateway, internalError},
		// The panic ended the process; a fresh one answers.
		{"/fail?mode=ok", http.StatusOK, "ok"},
	}
	for _, tt := range tests {
		wantStatus(t, get(t, url+tt.path), tt.status, tt.body)
	}
	errs := logs.find(t, "function error", "FailFunction")
	if len(errs) != 2 || errs[0]["errorMessage"] != "fail: error on purpose" {
		t.Errorf("got function error logs %v, want 2, the first with errorMessage %q", errs, "fail: error on purpose")
	}
}

func TestTimeout(t *testing.T) {
	_, url, logs := startEmulator(t, Config{})
	wantStatus(t, get(t, url+"/slow?ms=3000"), http.StatusGatewayTimeout, `{"message":"Endpoint request timed out"}`)
	if got := logs.find(t, "invocation timed out", "SlowFunction"); len(got) != 1 {
		t.Errorf("got %d timeout logs, want 1", len(got))
	}
	wantStatus(t, get(t, url+"/slow?ms=0"), http.StatusOK, "done")
	if got := logs.find(t, "cold start", "SlowFunction"); len(got) != 2 {
		t.Errorf("got %d cold starts, want 2: the timed-out process must be replaced", len(got))
	}
}

func TestInitFailure(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	_, url, logs := startEmulator(t, Config{Overrides: map[string]string{"INIT_MARKER": marker}})
	tests := []struct {
		path, function string
		wantCause      string
	}{
		{"/initfail", "InitFailFunction", "Function.MarkerMissing"}, // posted to /init/error
		{"/initexit", "InitExitFunction", "exit status 1"},
	}
	for _, tt := range tests {
		wantStatus(t, get(t, url+tt.path), http.StatusBadGateway, internalError)
		lines := logs.find(t, "init failed", tt.function)
		if len(lines) != 1 {
			t.Fatalf("%s: got %d init failure logs, want 1", tt.function, len(lines))
		}
		if cause := fmt.Sprint(lines[0]["error"]); !strings.Contains(cause, tt.wantCause) {
			t.Errorf("%s: got error %q, want it to contain %q", tt.function, cause, tt.wantCause)
		}
		if out := fmt.Sprint(lines[0]["output"]); !strings.Contains(out, "initfail: marker missing") {
			t.Errorf("%s: got output %q, want the process's stderr", tt.function, out)
		}
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		wantStatus(t, get(t, url+tt.path), http.StatusOK, "ready")
	}
}

func TestConcurrentRequests(t *testing.T) {
	const requests, maxProcs = 6, 3
	_, url, logs := startEmulator(t, Config{MaxProcesses: maxProcs})
	results := make([]response, requests)
	errs := make([]error, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			results[i], errs[i] = fetch(http.MethodGet, fmt.Sprintf("%s/echo/%d?sleep=300", url, i), nil, nil)
		})
	}
	wg.Wait()
	pids := map[string]bool{}
	for i, r := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if r.status != http.StatusOK {
			t.Errorf("request %d: got status %d, want 200", i, r.status)
		}
		pids[r.header.Get("X-Pid")] = true
	}
	if len(pids) > maxProcs {
		t.Errorf("got %d processes, want at most %d", len(pids), maxProcs)
	}
	if got := logs.find(t, "cold start", "EchoFunction"); len(got) > maxProcs {
		t.Errorf("got %d cold starts, want at most %d", len(got), maxProcs)
	}
}

func TestCloseStopsProcesses(t *testing.T) {
	out := &waitbuf.Buffer{}
	e, url, _ := startEmulator(t, Config{Output: out})
	echoPID := pidOf(t, get(t, url+"/echo/1"))
	wantStatus(t, get(t, url+"/fail?mode=ok"), http.StatusOK, "ok")
	// One more process busy with an invocation while Close runs.
	inFlight := make(chan response, 1)
	go func() {
		r, _ := fetch(http.MethodGet, url+"/slow?ms=800", nil, nil)
		inFlight <- r
	}()
	// The slow function says when its invocation began: its process is live and busy.
	out.Await(t, "the slow invocation", func(written string) bool { return strings.Contains(written, slowStarted) })
	pids := livePIDs(e)
	if len(pids) != 3 || !slices.Contains(pids, echoPID) {
		t.Fatalf("got live processes %v, want 3 including echo's %d", pids, echoPID)
	}

	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d: got %v after Close, want ESRCH", pid, err)
		}
	}
	if r := <-inFlight; r.status != http.StatusBadGateway {
		t.Errorf("in-flight request: got status %d, want 502", r.status)
	}
	wantStatus(t, get(t, url+"/echo/1"), http.StatusBadGateway, internalError)
}

// slowStarted is what the slow test function prints as an invocation begins.
const slowStarted = "slow: invocation started"

func livePIDs(e *Emulator) []int {
	var pids []int
	for _, f := range e.functions {
		f.pool.mu.Lock()
		for p := range f.pool.live {
			pids = append(pids, p.cmd.Process.Pid)
		}
		f.pool.mu.Unlock()
	}
	return pids
}

func TestBuildFailure(t *testing.T) {
	tmpl, err := sam.Load("testdata/broken/template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	// No BuildDir: the emulator makes a temporary one and removes it on Close.
	var reports []Built
	e, err := New(Config{Template: tmpl, Root: "testdata/broken", Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		BuildProgress: func(b Built) { reports = append(reports, b) }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()

	wantStatus(t, get(t, srv.URL+"/broken"), http.StatusBadGateway, internalError)
	lines := logs.find(t, "build failed", "BrokenFunction")
	if len(lines) != 1 || !strings.Contains(fmt.Sprint(lines[0]["output"]), "cannot use") {
		t.Errorf("got build failure logs %v, want one with the compiler's output", lines)
	}
	// A failed build is tried again, and reported.
	if err := e.Build(context.Background(), "broken"); err == nil || !strings.Contains(err.Error(), "build BrokenFunction") {
		t.Errorf("got Build error %v, want build BrokenFunction: ...", err)
	}
	if len(reports) != 1 || reports[0].Function != "BrokenFunction" || reports[0].Err == nil || reports[0].Done != 1 || reports[0].Total != 1 {
		t.Errorf("got progress %+v, want one failed report of BrokenFunction, 1 of 1", reports)
	}
	if got := len(logs.find(t, "build failed", "BrokenFunction")); got != 2 {
		t.Errorf("got %d build failure logs, want 2", got)
	}

	dir := e.removeDir
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("build dir %s: got %v after Close, want it removed", dir, err)
	}
}

// pidOf reads the X-Pid header the test functions set.
func pidOf(t *testing.T, r response) int {
	t.Helper()
	pid, err := strconv.Atoi(r.header.Get("X-Pid"))
	if err != nil {
		t.Fatalf("X-Pid %q: %v", r.header.Get("X-Pid"), err)
	}
	return pid
}

// Build reports every function once, counting up to the total.
func TestBuildProgress(t *testing.T) {
	var reports []Built
	e, _, _ := startEmulator(t, Config{BuildProgress: func(b Built) { reports = append(reports, b) }})
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, b := range reports {
		if b.Done != i+1 || b.Total != len(e.functions) || b.Err != nil || b.Duration <= 0 {
			t.Errorf("report %d = %+v, want %d of %d, no error, a duration", i, b, i+1, len(e.functions))
		}
		seen[b.Function] = true
	}
	if len(reports) != len(e.functions) || len(seen) != len(e.functions) {
		t.Errorf("got %d reports of %d functions, want one for each of %d", len(reports), len(seen), len(e.functions))
	}
}
