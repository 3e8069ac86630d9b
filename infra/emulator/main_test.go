package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/waitbuf"
	"github.com/screenagent/backend/shared/sam"
)

// The test functions are built once per test binary into buildDir. Emulators of later tests
// reuse it: `go build` finds the binaries up to date and does not link them again.
var (
	buildDir string
	template *sam.Template
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if template, err = sam.Load("testdata/template.yaml"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if buildDir, err = os.MkdirTemp("", "emulator-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(buildDir)
	e, err := New(Config{Template: template, Root: "testdata", BuildDir: buildDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = e.Build(context.Background())
	e.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "build test functions:", err)
		return 1
	}
	return m.Run()
}

// logBuffer collects an emulator's logs so tests can look for lines in them, or wait for one.
type logBuffer struct{ waitbuf.Buffer }

// find returns the JSON log lines with message msg about function.
func (l *logBuffer) find(t *testing.T, msg, function string) []map[string]any {
	t.Helper()
	return findLines(t, l.String(), msg, function)
}

// await waits for a JSON log line with message msg about function.
func (l *logBuffer) await(t *testing.T, msg, function string) {
	t.Helper()
	l.Await(t, fmt.Sprintf("a log line %q about %s", msg, function), func(written string) bool {
		return len(findLines(t, written, msg, function)) > 0
	})
}

// findLines returns the JSON lines of logs with message msg about function.
func findLines(t *testing.T, logs, msg, function string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(logs), "\n") {
		if s == "" {
			continue // nothing logged yet
		}
		var line map[string]any
		if err := json.Unmarshal([]byte(s), &line); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		if line["msg"] == msg && line["function"] == function {
			out = append(out, line)
		}
	}
	return out
}

// startEmulator serves the test template with cfg's other settings; Close runs at cleanup.
func startEmulator(t *testing.T, cfg Config) (*Emulator, string, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	cfg.Template, cfg.Root, cfg.BuildDir = template, "testdata", buildDir
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	e, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	srv := httptest.NewServer(e.Handler())
	t.Cleanup(srv.Close)
	return e, srv.URL, logs
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func send(t *testing.T, method, url string, header map[string]string, body []byte) response {
	t.Helper()
	r, err := fetch(method, url, header, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fetch is send for goroutines, which must not call t.Fatal.
func fetch(method, url string, header map[string]string, body []byte) (response, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return response{}, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: read body: %w", method, url, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

func get(t *testing.T, url string) response {
	t.Helper()
	return send(t, http.MethodGet, url, nil, nil)
}

// wantStatus fails unless r has the status and, if body isn't empty, that exact body.
func wantStatus(t *testing.T, r response, status int, body string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("got status %d, want %d (body %s)", r.status, status, r.body)
	}
	if body != "" && strings.TrimSpace(string(r.body)) != body {
		t.Fatalf("got body %s, want %s", r.body, body)
	}
}
