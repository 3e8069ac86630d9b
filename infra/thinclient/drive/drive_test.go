package drive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/thinclient/browser"
)

// fakeAPI answers login and a script of interact or run responses, recording the requests.
type fakeAPI struct {
	mu       sync.Mutex
	script   []string // JSON bodies, in order
	requests []map[string]any
	paths    []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/api/v1/auth/login" {
		io.WriteString(w, `{"success":true,"data":{"accessToken":"tok"}}`)
		return
	}
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, body)
	f.paths = append(f.paths, r.URL.Path)
	if len(f.script) == 0 {
		w.WriteHeader(500)
		io.WriteString(w, `{"success":false,"code":"INTERNAL_ERROR"}`)
		return
	}
	io.WriteString(w, f.script[0])
	f.script = f.script[1:]
}

const page = `<!doctype html><title>T</title><body><button onclick="document.title='clicked'">Go</button>
<div style="position:fixed;inset:0;background:#fff" id="cover">cover</div></body>`

func setup(t *testing.T, script ...string) (*fakeAPI, *API, *browser.Tab, string) {
	t.Helper()
	return setupSite(t, func(string) string { return page }, script...)
}

// setupSite is setup with a site that serves pageAt(path).
func setupSite(t *testing.T, pageAt func(path string) string, script ...string) (*fakeAPI, *API, *browser.Tab, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	fake := &fakeAPI{script: script}
	apiSrv := httptest.NewServer(fake)
	t.Cleanup(apiSrv.Close)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, pageAt(r.URL.Path))
	}))
	t.Cleanup(site.Close)
	api, err := Login(ctx, apiSrv.URL, "a@b.c", "pw")
	if err != nil {
		t.Fatal(err)
	}
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	tab, err := b.NewTab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	return fake, api, tab, site.URL
}

func interactData(action, status string) string {
	return fmt.Sprintf(`{"success":true,"data":{"thought":"t","action":%q,"taskId":"00000000-0000-4000-8000-000000000001","sessionId":"00000000-0000-4000-8000-000000000002","status":%q}}`, action, status)
}

func TestInteractReportsFailuresAndSendsTheUsersReply(t *testing.T) {
	fake, api, tab, site := setup(t,
		interactData("click(1)", "active"),
		interactData(`askUser("Which colour?")`, "needs_user_input"),
		interactData(`finish()`, "completed"),
	)
	var asked string
	tr := Interact(context.Background(), api, tab, Task{Text: "Press Go", StartURL: site, User: func(q string) (string, bool) {
		asked = q
		return "Blue", true
	}})
	if tr.End != Finished || len(tr.Steps) != 3 || asked != "Which colour?" {
		t.Fatalf("got %+v (asked %q), want three steps ending finished", tr, asked)
	}
	if tr.Steps[0].OK || tr.Steps[0].Screenshot == nil {
		t.Errorf("step 1: got %+v, want a failed click with a screenshot", tr.Steps[0])
	}
	first, second, third := fake.requests[0], fake.requests[1], fake.requests[2]
	if first["query"] != "Press Go" || !strings.Contains(first["dom"].(string), `<button id="1">Go</button>`) || first["taskId"] != nil {
		t.Errorf("first request: got %v, want the task, the dom and no task id", first)
	}
	checkClock(t, "interact request", first)
	errObj, _ := second["lastActionError"].(map[string]any)
	if second["lastActionStatus"] != "failure" || errObj["code"] != browser.CodeClickIntercepted || errObj["elementId"] != float64(1) || errObj["action"] != "click(1)" {
		t.Errorf("second request: got %v, want the intercepted click reported", second)
	}
	if second["taskId"] != "00000000-0000-4000-8000-000000000001" || second["query"] != "Press Go" {
		t.Errorf("second request: got %v, want the same task and query", second)
	}
	if third["query"] != "Blue" || third["lastActionStatus"] != "success" {
		t.Errorf("third request: got %v, want the user's reply as the query", third)
	}
	if tr.Answer != "t" {
		t.Errorf("got answer %q, want the thought when finish carries none", tr.Answer)
	}
}

func TestRunAnswersQuestionsAndRunsTheApprovedTool(t *testing.T) {
	fake, api, tab, site := setup(t,
		`{"runId":"r1","success":true}`,
		`{"action":"ask_user","question":"Proceed?","state":{"status":"waiting_user"}}`,
		`{"action":"execute_tool","tool":{"name":"scroll","parameters":{"deltaY":300}},"state":{"status":"running"}}`,
		`{"action":"finish","result":"done it","state":{"status":"completed"}}`,
	)
	tr := Run(context.Background(), api, tab, Task{Text: "x", StartURL: site, Mode: "careful", User: func(string) (string, bool) { return "ok", true }})
	if tr.End != Finished || tr.Answer != "done it" {
		t.Fatalf("got %+v, want finished with the run's result", tr)
	}
	want := []string{"/agent/run/start", "/agent/run/r1/step", "/agent/run/r1/answer", "/agent/run/r1/step"}
	if strings.Join(fake.paths, " ") != strings.Join(want, " ") {
		t.Errorf("got calls %v, want %v", fake.paths, want)
	}
	checkClock(t, "run start", fake.requests[0])
	if a := fake.requests[2]; a["approved"] != true || a["answer"] != "ok" {
		t.Errorf("answer: got %v, want approved with the reply", a)
	}
	last, _ := fake.requests[3]["lastActionResult"].(map[string]any)
	snap, _ := fake.requests[1]["snapshot"].(map[string]any)
	if last["success"] != true || snap["url"] == nil {
		t.Errorf("got result %v and snapshot %v, want the scroll's result and a snapshot", last, snap)
	}
}

// checkClock: a request carries the browser's time zone and locale, so the prompt shows the
// user's local time.
func checkClock(t *testing.T, what string, req map[string]any) {
	t.Helper()
	zone, _ := req["timezone"].(string)
	if _, err := time.LoadLocation(zone); zone == "" || err != nil {
		t.Errorf("%s: got timezone %v, want the browser's IANA zone", what, req["timezone"])
	}
	if locale, _ := req["locale"].(string); locale == "" {
		t.Errorf("%s: got locale %v, want the browser's language", what, req["locale"])
	}
}
