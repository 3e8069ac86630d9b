package functions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

// runBody is any body of the run API: start, step, answer, cancel, get, or an error
// ({"error": code, "message": ...}; a step's own "error" is its stop reason).
type runBody struct {
	Success  bool   `json:"success"`
	RunID    string `json:"runId"`
	Action   string `json:"action"`
	Question string `json:"question"`
	Result   string `json:"result"`
	Error    string `json:"error"`
	Message  string `json:"message"`
	// ConfirmationID comes with a question about an action the security gate held.
	ConfirmationID string `json:"confirmationId"`
	Tool           *struct {
		Name       string         `json:"name"`
		Parameters map[string]any `json:"parameters"`
	} `json:"tool"`
	State struct {
		Status      string `json:"status"`
		CurrentStep int    `json:"currentStep"`
		MaxSteps    int    `json:"maxSteps"`
		RunID       string `json:"runId"`
		Task        string `json:"task"`
		Mode        string `json:"mode"`
		Error       string `json:"error"`
		// PendingConfirmationID is the held action's id while the run waits for its approval.
		PendingConfirmationID string `json:"pendingConfirmationId"`
		History               []struct {
			StepNumber  int    `json:"stepNumber"`
			Action      string `json:"action"`
			Observation string `json:"observation"`
			Warning     string `json:"warning"`
			Timestamp   int64  `json:"timestamp"`
		} `json:"history"`
		Reflections []struct {
			StepNumber int      `json:"stepNumber"`
			Efficiency string   `json:"efficiency"`
			Issues     []string `json:"issues"`
		} `json:"reflections"`
		CurrentSnapshot *struct {
			URL string `json:"url"`
		} `json:"currentSnapshot"`
	} `json:"state"`
}

// runCall sends a run API request; every answer of the run API is JSON.
func runCall(t *testing.T, method, url, token string, body any) (int, runBody, []byte) {
	t.Helper()
	status, _, raw := call(t, method, url, token, body)
	var b runBody
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("%s %s: body %q is not JSON: %v", method, url, raw, err)
	}
	return status, b, raw
}

type runClient struct {
	t     *testing.T
	base  string
	token string
}

func (c runClient) start(mode string) string {
	c.t.Helper()
	status, b, raw := runCall(c.t, "POST", c.base+"/agent/run/start", c.token, map[string]string{"task": "Find pricing information", "mode": mode})
	if status != 200 || !b.Success || b.RunID == "" {
		c.t.Fatalf("start = %d %s, want 200 with a runId", status, raw)
	}
	return b.RunID
}

func (c runClient) step(runID string, snapshot, result any) (int, runBody) {
	c.t.Helper()
	status, b, _ := runCall(c.t, "POST", c.base+"/agent/run/"+runID+"/step", c.token, map[string]any{"snapshot": snapshot, "lastActionResult": result})
	return status, b
}

func (c runClient) answer(runID string, body map[string]any) (int, runBody) {
	c.t.Helper()
	status, b, _ := runCall(c.t, "POST", c.base+"/agent/run/"+runID+"/answer", c.token, body)
	return status, b
}

func (c runClient) get(runID string) runBody {
	c.t.Helper()
	status, b, raw := runCall(c.t, "GET", c.base+"/agent/run/"+runID, c.token, nil)
	if status != 200 || !b.Success {
		c.t.Fatalf("GET run = %d %s, want 200", status, raw)
	}
	return b
}

// snapshot is a page of the shop as the content script reports it.
func snapshot(url string) map[string]any {
	return map[string]any{
		"url": url, "title": "Shop", "visibleText": "Welcome to the shop. Plans and pricing. Pay securely.",
		"elements": []map[string]any{
			{"id": "agent-1", "tag": "input", "type": "text", "placeholder": "Search"},
			{"id": "agent-2", "tag": "a", "text": "Pricing", "href": "https://shop.example/pricing"},
			{"id": "agent-3", "tag": "button", "text": "Pay Now"},
			{"id": "agent-4", "tag": "button", "text": "Continue"},
			{"id": "agent-5", "tag": "button", "text": "Next", "ariaLabel": "Pay now"},
		},
		"timestamp": 1737292800000,
	}
}

func toolReply(name, args string) string {
	return fmt.Sprintf(`{"type":"tool_call","tool":{"name":%q,"arguments":%s}}`, name, args)
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestRunExampleFlowOverHTTP runs PROXY_SERVER_API.md's Example Flow, with a Bearer header: start,
// then step in a loop, executing tools, answering a question, until finish.
func TestRunExampleFlowOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil)})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	createUser(t, stack, "bob@example.com", "a long enough passphrase")
	ada := runClient{t, stack.URL, login(t, stack.URL, "ada@example.com", "a long enough passphrase")}
	bob := runClient{t, stack.URL, login(t, stack.URL, "bob@example.com", "a long enough passphrase")}

	// 1. Start run
	status, started, raw := runCall(t, "POST", stack.URL+"/agent/run/start", ada.token, map[string]string{"task": "Find pricing information", "mode": "autonomous"})
	if want := `{"success":true,"runId":"` + started.RunID + `","state":{"status":"created","currentStep":0,"maxSteps":150}}`; status != 200 || string(raw) != want || !uuidPattern.MatchString(started.RunID) {
		t.Fatalf("start = %d %s, want 200 %s with a UUID", status, raw, want)
	}
	runID := started.RunID

	fake.Reply(toolReply("observe", "{}"))
	fake.Reply(toolReply("click", `{"id":"agent-2"}`))
	fake.Reply(`{"type":"ask_user","question":"Monthly or yearly prices?"}`)
	fake.Reply(`{"type":"final","answer":"Pricing: $10/month or $100/year","thought":"The pricing page lists both."}`)

	// 2. Execute steps in loop
	var trace []string
	var lastActionResult any
	var final runBody
	for i := 0; i < 10 && final.Action == ""; i++ {
		status, step := ada.step(runID, snapshot("https://shop.example/"), lastActionResult)
		if status != 200 {
			t.Fatalf("step %d = %d %+v, want 200", i+1, status, step)
		}
		trace = append(trace, fmt.Sprintf("%s@%d:%s", step.Action, step.State.CurrentStep, step.State.Status))
		switch step.Action {
		case "execute_tool":
			trace[len(trace)-1] += ":" + step.Tool.Name
			lastActionResult = map[string]any{"success": true, "message": "Executed " + step.Tool.Name}
		case "ask_user":
			// The example posts {approved} with no headers but the token: fetch sends it as text/plain.
			req, _ := http.NewRequest("POST", stack.URL+"/agent/run/"+runID+"/answer", strings.NewReader(`{"approved":true,"answer":"yearly"}`))
			req.Header.Set("Authorization", "Bearer "+ada.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var a runBody
			if resp.StatusCode != 200 || json.Unmarshal(body, &a) != nil || a.Action != "execute_tool" || a.Tool.Name != "observe" ||
				a.State.Status != "running" || a.State.CurrentStep != step.State.CurrentStep+1 {
				t.Fatalf("answer = %d %s, want 200 execute_tool observe at the next step, running", resp.StatusCode, body)
			}
			lastActionResult = map[string]any{"success": true, "message": "Observed"}
		case "finish", "error":
			final = step
		}
	}
	want := []string{"execute_tool@1:running:observe", "execute_tool@2:running:click", "ask_user@3:waiting_user", "finish@5:completed"}
	if strings.Join(trace, " ") != strings.Join(want, " ") {
		t.Errorf("steps = %v, want %v", trace, want)
	}
	if final.Action != "finish" || final.Result != "Pricing: $10/month or $100/year" {
		t.Fatalf("final = %+v, want finish with the answer", final)
	}
	if last := fake.Requests()[3].User(); !strings.Contains(last, `(step 3): "yearly"`) || !strings.Contains(last, `Step 2: click {"id":"agent-2"} → "Executed click"`) {
		t.Errorf("the prompt after the answer lacks it or the history:\n%s", last)
	}

	// The full state.
	got := ada.get(runID).State
	if got.RunID != runID || got.Task != "Find pricing information" || got.Mode != "autonomous" || got.Status != "completed" || got.CurrentStep != 5 ||
		len(got.History) != 5 || got.CurrentSnapshot == nil || got.CurrentSnapshot.URL != "https://shop.example/" {
		t.Fatalf("GET run = %+v, want the completed run with 5 steps and the last page", got)
	}
	wantHistory := []struct{ action, observation string }{
		{"observe", "Executed observe"}, {"click", "Executed click"}, {"ask_user", "The user answered. Their answer: yearly"}, {"observe", "Observed"}, {"finish", ""},
	}
	for i, w := range wantHistory {
		if h := got.History[i]; h.StepNumber != i+1 || h.Action != w.action || h.Observation != w.observation || h.Timestamp == 0 {
			t.Errorf("history[%d] = %+v, want step %d %s → %q", i, h, i+1, w.action, w.observation)
		}
	}

	// A finished run takes no more steps.
	status, b, _ := runCall(t, "POST", stack.URL+"/agent/run/"+runID+"/step", ada.token, map[string]any{"snapshot": nil})
	if status != 409 || b.Error != "RESOURCE_CONFLICT" || b.Message == "" {
		t.Errorf("step after finish = %d %+v, want 409 {error, message}", status, b)
	}

	// Another tenant and unknown ids: 404 on every route.
	unknown := "6f1c2f0e-0000-4000-8000-000000000000"
	for _, c := range []struct {
		client       runClient
		method, path string
		body         any
	}{
		{bob, "GET", "/agent/run/" + runID, nil},
		{bob, "POST", "/agent/run/" + runID + "/step", map[string]any{}},
		{bob, "POST", "/agent/run/" + runID + "/answer", map[string]any{"approved": true}},
		{bob, "POST", "/agent/run/" + runID + "/cancel", nil},
		{ada, "GET", "/agent/run/" + unknown, nil},
		{ada, "POST", "/agent/run/" + unknown + "/cancel", nil},
		{ada, "POST", "/agent/run/" + unknown + "/step", map[string]any{}},
	} {
		status, _, raw := call(t, c.method, stack.URL+c.path, c.client.token, c.body)
		if want := `{"error":"NOT_FOUND","message":"Run not found or expired."}`; status != 404 || string(raw) != want {
			t.Errorf("%s %s = %d %s, want 404 %s", c.method, c.path, status, raw, want)
		}
	}

	// A malformed id is a bad request, as on every route; an upper-case one names the same run.
	if status, _, raw := call(t, "GET", stack.URL+"/agent/run/not-a-run-id", ada.token, nil); status != 400 ||
		string(raw) != `{"error":"VALIDATION_ERROR","message":"Invalid request: runId must be a UUID"}` {
		t.Errorf("GET a malformed run id = %d %s, want 400 VALIDATION_ERROR on runId", status, raw)
	}
	if got := ada.get(strings.ToUpper(runID)).State; got.RunID != runID {
		t.Errorf("GET the upper-case run id = %+v, want the run", got)
	}
	// Cancelling a finished run changes nothing, and says so.
	if status, b, _ := runCall(t, "POST", stack.URL+"/agent/run/"+runID+"/cancel", ada.token, nil); status != 409 || b.Error != "RESOURCE_CONFLICT" {
		t.Errorf("cancel of a completed run = %d %+v, want 409 RESOURCE_CONFLICT", status, b)
	}

	// Cancel: 200 {success:true}, then steps and another cancel are refused.
	other := ada.start("careful")
	if status, _, raw := call(t, "POST", stack.URL+"/agent/run/"+other+"/cancel", ada.token, nil); status != 200 || string(raw) != `{"success":true}` {
		t.Errorf("cancel = %d %s, want 200 {\"success\":true}", status, raw)
	}
	if status, _, _ := call(t, "POST", stack.URL+"/agent/run/"+other+"/cancel", ada.token, nil); status != 409 {
		t.Errorf("second cancel = %d, want 409", status)
	}
	if got := ada.get(other).State; got.Status != "cancelled" {
		t.Errorf("status after cancel = %s, want cancelled", got.Status)
	}
	if status, b := ada.step(other, nil, nil); status != 409 || b.Error != "RESOURCE_CONFLICT" {
		t.Errorf("step after cancel = %d %+v, want 409", status, b)
	}

	// Bad requests name what is wrong.
	for _, c := range []struct {
		name, path string
		body       any
		wantInMsg  string
	}{
		{"start without a task", "/agent/run/start", map[string]string{"mode": "autonomous"}, "task is required"},
		{"start with an invalid mode", "/agent/run/start", map[string]string{"task": "t", "mode": "fast"}, "mode must be autonomous or careful"},
		{"too many elements", "/agent/run/" + other + "/step", map[string]any{"snapshot": map[string]any{"url": "https://a.example/", "elements": manyElements(101)}},
			"snapshot.elements must have at most 100 elements"},
		{"element text too long", "/agent/run/" + other + "/step", map[string]any{"snapshot": map[string]any{"url": "https://a.example/",
			"elements": []map[string]any{{"id": "agent-1", "tag": "a", "text": strings.Repeat("x", 201)}}}}, "snapshot.elements[0].text must be at most 200 characters"},
		{"visible text too long", "/agent/run/" + other + "/step", map[string]any{"snapshot": map[string]any{"url": "https://a.example/", "visibleText": strings.Repeat("x", 7000)}},
			"snapshot.visibleText must be at most 6100 characters"},
		{"answer without approved", "/agent/run/" + other + "/answer", map[string]any{"answer": "yes"}, "approved is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, b, raw := runCall(t, "POST", stack.URL+c.path, ada.token, c.body)
			if status != 400 || b.Error != "VALIDATION_ERROR" || !strings.Contains(b.Message, c.wantInMsg) {
				t.Errorf("got %d %s, want 400 VALIDATION_ERROR with %q", status, raw, c.wantInMsg)
			}
		})
	}

	// A body that is not JSON in a JSON route is refused by its media type; an empty step is not a step.
	for _, c := range []struct {
		path, contentType, body string
		wantStatus              int
		wantError               string
	}{
		{"/agent/run/start", "application/x-www-form-urlencoded", "task=t", 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"/agent/run/" + other + "/step", "application/xml", "<step/>", 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"/agent/run/" + other + "/answer", "multipart/form-data; boundary=x", "--x--", 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"/agent/run/" + other + "/step", "application/json", "", 400, "VALIDATION_ERROR"},
	} {
		req, _ := http.NewRequest("POST", stack.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+ada.token)
		req.Header.Set("Content-Type", c.contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var b runBody
		if resp.StatusCode != c.wantStatus || json.Unmarshal(raw, &b) != nil || b.Error != c.wantError || b.Message == "" {
			t.Errorf("POST %s as %s = %d %s, want %d %s", c.path, c.contentType, resp.StatusCode, raw, c.wantStatus, c.wantError)
		}
	}

	// No token: 401 in the run API's body.
	for _, path := range []string{"/agent/run/start", "/agent/run/" + runID + "/step"} {
		status, _, raw := call(t, "POST", stack.URL+path, "", map[string]any{"task": "t"})
		if want := `{"error":"UNAUTHORIZED","message":"Authentication required: the access token is missing, invalid or expired."}`; status != 401 || string(raw) != want {
			t.Errorf("POST %s without a token = %d %s, want 401 %s", path, status, raw, want)
		}
	}
}

func manyElements(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"id": fmt.Sprintf("agent-%d", i), "tag": "a"}
	}
	return out
}

// TestRunSecurityGateOverHTTP: in careful mode each trigger of the gate becomes a question naming
// the element; approving executes the held action, declining cancels the run. In autonomous mode
// the action goes ahead and the warning is in the history.
func TestRunSecurityGateOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	// Each case starts a run of its own: more than the default limit of runs a minute.
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, map[string]string{"RATE_LIMIT_RUNS": "100"})})
	adaUser := createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := runClient{t, stack.URL, login(t, stack.URL, "ada@example.com", "a long enough passphrase")}

	triggers := []struct {
		name, page, reply, question, heldTool string
	}{
		{"payment-like element text", "https://shop.example/cart", toolReply("click", `{"id":"agent-3"}`),
			`⚠️ Security check: click "Pay Now" may spend your money or commit you to a payment — the gate held it because of the text "Pay Now". Proceed?`, "click"},
		{"checkout URL", "https://shop.example/checkout", toolReply("click", `{"id":"agent-4"}`),
			`⚠️ Security check: click "Continue" may spend your money or commit you to a payment — the gate held it because of acting on the checkout or payment address shop.example/checkout. Proceed?`, "click"},
		{"type with submit", "https://shop.example/", toolReply("type", `{"id":"agent-1","text":"gift card","submit":true}`),
			`⚠️ Security check: type "Search" may spend your money or commit you to a payment — the gate held it because of typing into a field and submitting its form. Proceed?`, "type"},
		{"an aria-label behind a plain label", "https://shop.example/", toolReply("click", `{"id":"agent-5"}`),
			`⚠️ Security check: click "Next" may spend your money or commit you to a payment — the gate held it because of the aria-label "Pay now". Proceed?`, "click"},
	}
	for _, tr := range triggers {
		for _, approved := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, approved %v", tr.name, approved), func(t *testing.T) {
				runID := ada.start("careful")
				fake.Reply(tr.reply)
				status, step := ada.step(runID, snapshot(tr.page), nil)
				if status != 200 || step.Action != "ask_user" || step.Question != tr.question || step.State.Status != "waiting_user" || step.State.CurrentStep != 1 || step.ConfirmationID == "" {
					t.Fatalf("step = %d %+v, want ask_user %q with a confirmationId, waiting_user at step 1", status, step, tr.question)
				}
				if got := ada.get(runID).State.PendingConfirmationID; got != step.ConfirmationID {
					t.Errorf("GET pendingConfirmationId = %q, want %q", got, step.ConfirmationID)
				}
				if status, b := ada.step(runID, nil, nil); status != 409 || b.Error != "RESOURCE_CONFLICT" {
					t.Errorf("step while waiting = %d %+v, want 409", status, b)
				}
				if approved {
					// An approval must name the held action: without its id, or with another, it is refused.
					for _, body := range []map[string]any{{"approved": true}, {"approved": true, "confirmationId": "cf_0"}} {
						if status, b := ada.answer(runID, body); status != 400 || b.Error != "VALIDATION_ERROR" || !strings.Contains(b.Message, "confirmationId") {
							t.Errorf("approve %v = %d %+v, want 400 VALIDATION_ERROR on confirmationId", body, status, b)
						}
					}
				}
				status, a := ada.answer(runID, map[string]any{"approved": approved, "confirmationId": step.ConfirmationID})
				if !approved {
					if status != 200 || a.State.Status != "cancelled" || a.Action != "error" {
						t.Errorf("decline = %d %+v, want the run cancelled", status, a)
					}
					if got := ada.get(runID).State; got.Status != "cancelled" || got.History[0].Observation != "The user declined." {
						t.Errorf("run after decline = %+v, want cancelled with the answer in the history", got)
					}
					if status, _ := ada.step(runID, nil, nil); status != 409 {
						t.Errorf("step after decline = %d, want 409", status)
					}
					return
				}
				if status != 200 || a.Action != "execute_tool" || a.Tool.Name != tr.heldTool || a.State.Status != "running" || a.State.CurrentStep != 2 {
					t.Fatalf("approve = %d %+v, want the held %s at step 2, running", status, a, tr.heldTool)
				}
				if got := ada.get(runID).State.History; len(got) != 2 || got[0].Action != "ask_user" || got[0].Warning == "" || got[1].Action != tr.heldTool {
					t.Errorf("history = %+v, want the question with the gate's reason, then the approved %s", got, tr.heldTool)
				}
			})
		}
	}

	// What got past the gate before (issue 16): disguised labels, other words and languages, a link
	// to checkout, Enter on a cart page; and the tenant's own words, read from its settings.
	if err := accountsdb.New(stack.DB.Client, stack.DB.Tables["AccountsTable"]).SetGateSettings(context.Background(), adaUser.ID,
		accounts.GateSettings{Words: []string{"Approve invoice"}}); err != nil {
		t.Fatal(err)
	}
	button := func(text string) map[string]any {
		return map[string]any{"id": "agent-9", "tag": "button", "text": text}
	}
	for _, c := range []struct {
		name, page, reply string
		element           map[string]any
	}{
		{"spaced letters", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`), button("P a y  n o w")},
		{"zero-width space", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`), button("Pay\u200bnow")},
		{"Cyrillic look-alikes", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`), button("\u0420\u0430\u0443")},
		{"fullwidth letters", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`), button("Ｐａｙ")},
		{"Donate", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`), button("Donate $50")},
		{"German", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`), button("Jetzt bezahlen")},
		{"a link to checkout", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`),
			map[string]any{"id": "agent-9", "tag": "a", "text": "Next", "href": "https://shop.example/checkout"}},
		{"navigate to a pay host", "https://shop.example/", toolReply("navigate", `{"url":"https://pay.example.com/s/1"}`), nil},
		{"Enter on a cart page", "https://shop.example/cart", toolReply("press", `{"key":"Enter"}`), nil},
		{"the tenant's own words", "https://shop.example/", toolReply("click", `{"id":"agent-9"}`), button("Approve invoice")},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := snapshot(c.page)
			if c.element != nil {
				page["elements"] = append(page["elements"].([]map[string]any), c.element)
			}
			runID := ada.start("careful")
			fake.Reply(c.reply)
			if status, step := ada.step(runID, page, nil); status != 200 || step.Action != "ask_user" || step.State.Status != "waiting_user" {
				t.Errorf("step = %d %+v, want the action held for the user", status, step)
			}
		})
	}
	for _, label := range []string{"Order history", "Payroll"} {
		runID := ada.start("careful")
		page := snapshot("https://shop.example/")
		page["elements"] = append(page["elements"].([]map[string]any), map[string]any{"id": "agent-9", "tag": "a", "text": label})
		fake.Reply(toolReply("click", `{"id":"agent-9"}`))
		if status, step := ada.step(runID, page, nil); status != 200 || step.Action != "execute_tool" {
			t.Errorf("click on %q = %d %+v, want it executed without asking", label, status, step)
		}
	}

	t.Run("autonomous mode records the warning", func(t *testing.T) {
		runID := ada.start("autonomous")
		fake.Reply(toolReply("click", `{"id":"agent-3"}`))
		status, step := ada.step(runID, snapshot("https://shop.example/cart"), nil)
		if status != 200 || step.Action != "execute_tool" || step.Tool.Name != "click" || step.Tool.Parameters["id"] != "agent-3" {
			t.Fatalf("step = %d %+v, want the click executed", status, step)
		}
		if h := ada.get(runID).State.History; len(h) != 1 || !strings.Contains(h[0].Warning, "Pay Now") || !strings.Contains(h[0].Warning, "autonomous") {
			t.Errorf("history = %+v, want the gate's warning on the click", h)
		}
	})
}

// TestRunLoopsOverHTTP: each documented loop pattern stops the run with a reason.
func TestRunLoopsOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil)})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := runClient{t, stack.URL, login(t, stack.URL, "ada@example.com", "a long enough passphrase")}
	click1, typeX, typeY, typeZ := toolReply("click", `{"id":"agent-2"}`), toolReply("type", `{"id":"agent-1","text":"x"}`),
		toolReply("type", `{"id":"agent-1","text":"y"}`), toolReply("type", `{"id":"agent-1","text":"z"}`)
	cases := []struct {
		name      string
		replies   []string
		wantInErr string
	}{
		{"pattern 1: the same action 3 times in a row", []string{toolReply("observe", "{}"), toolReply("observe", "{}"), toolReply("observe", "{}")},
			"the same action (observe) was chosen 3 times in a row"},
		{"pattern 2: the same tool and target 4 times", []string{typeX, typeY, typeZ, toolReply("type", `{"id":"agent-1","text":"w"}`)},
			"type was used on the same target 4 times in a row"},
		{"pattern 3: two actions taking turns over 7 steps", []string{click1, typeX, click1, typeY, click1, typeZ, click1},
			"the last 7 steps only alternated between the same two actions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runID := ada.start("autonomous")
			for _, r := range tc.replies {
				fake.Reply(r)
			}
			result := any(nil)
			for i := range len(tc.replies) - 1 {
				if status, step := ada.step(runID, snapshot("https://shop.example/"), result); status != 200 || step.Action != "execute_tool" {
					t.Fatalf("step %d = %d %+v, want a tool", i+1, status, step)
				}
				result = map[string]any{"success": true}
			}
			status, step := ada.step(runID, nil, result)
			n := len(tc.replies) - 1
			if status != 200 || step.Action != "error" || step.State.Status != "error" || step.State.CurrentStep != n ||
				step.Error != "Stopped: loop detected: "+tc.wantInErr {
				t.Errorf("looping step = %d %+v, want error %q at step %d", status, step, tc.wantInErr, n)
			}
			if got := ada.get(runID).State; got.Status != "error" || got.Error != step.Error {
				t.Errorf("run = %s %q, want error with the reason", got.Status, got.Error)
			}
		})
	}
}

// TestRunReflectionStopOverHTTP: failing actions make the reflections at steps 5 and 10 low, which
// stops the run; the first one's suggestions reach the next prompt.
func TestRunReflectionStopOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil)})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := runClient{t, stack.URL, login(t, stack.URL, "ada@example.com", "a long enough passphrase")}
	runID := ada.start("autonomous")
	cycle := []string{toolReply("click", `{"id":"agent-2"}`), toolReply("type", `{"id":"agent-1","text":"pricing"}`),
		toolReply("scroll", `{"deltaY":400}`), toolReply("press", `{"key":"Tab"}`), toolReply("click", `{"id":"agent-4"}`)}
	for i := range 10 {
		fake.Reply(cycle[i%len(cycle)])
	}
	failed := map[string]any{"success": false, "error": "Element not interactable"}
	var result any
	for i := 1; i <= 9; i++ {
		if status, step := ada.step(runID, snapshot("https://shop.example/"), result); status != 200 || step.Action != "execute_tool" {
			t.Fatalf("step %d = %d %+v, want a tool", i, status, step)
		}
		result = failed
	}
	status, step := ada.step(runID, nil, failed)
	if status != 200 || step.Action != "error" || step.State.Status != "error" || step.State.CurrentStep != 9 ||
		!strings.HasPrefix(step.Error, "Stopped: low efficiency in two self-reflections in a row (steps 5 and 10): 4 of the last 4 reported actions failed") {
		t.Fatalf("step 10 = %d %+v, want the reflection stop", status, step)
	}
	if p := fake.Requests()[5].User(); !strings.Contains(p, "SELF-REFLECTION (step 5): efficiency low") || !strings.Contains(p, "Do not repeat failing actions") {
		t.Errorf("prompt of step 6 lacks the reflection:\n%s", p)
	}
	got := ada.get(runID).State
	if len(got.Reflections) != 2 || got.Reflections[0].StepNumber != 5 || got.Reflections[1].StepNumber != 10 ||
		got.Reflections[0].Efficiency != "low" || got.Reflections[1].Efficiency != "low" || len(got.Reflections[1].Issues) == 0 {
		t.Errorf("reflections = %+v, want low at steps 5 and 10 with issues", got.Reflections)
	}
	if h := got.History; len(h) != 9 || h[8].Observation != "Failed: Element not interactable" {
		t.Errorf("history = %+v, want 9 steps, the last with its reported failure", h)
	}
}

// TestRunMaxStepsAndRateLimitOverHTTP: a run stops at RUN_MAX_STEPS with the documented error
// response, and a tenant past the run API's limit gets 429 in the run API's body.
func TestRunMaxStepsAndRateLimitOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, map[string]string{"RUN_MAX_STEPS": "3", "RATE_LIMIT_RUNS": "8"})})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	createUser(t, stack, "bob@example.com", "a long enough passphrase")
	ada := runClient{t, stack.URL, login(t, stack.URL, "ada@example.com", "a long enough passphrase")}
	bob := runClient{t, stack.URL, login(t, stack.URL, "bob@example.com", "a long enough passphrase")}

	runID := ada.start("autonomous")
	for _, r := range []string{toolReply("observe", "{}"), toolReply("click", `{"id":"agent-2"}`), toolReply("scroll", `{"deltaY":300}`)} {
		fake.Reply(r)
	}
	for i := 1; i <= 3; i++ {
		if status, step := ada.step(runID, snapshot("https://shop.example/"), map[string]any{"success": true}); status != 200 || step.Action != "execute_tool" || step.State.MaxSteps != 3 {
			t.Fatalf("step %d = %d %+v, want a tool of a 3-step run", i, status, step)
		}
	}
	status, _, raw := call(t, "POST", stack.URL+"/agent/run/"+runID+"/step", ada.token, map[string]any{"snapshot": nil, "lastActionResult": map[string]any{"success": true}})
	if want := `{"action":"error","error":"Maximum steps reached","state":{"status":"error","currentStep":3,"maxSteps":3}}`; status != 200 || string(raw) != want {
		t.Errorf("step past the maximum = %d %s, want 200 %s", status, raw, want)
	}
	if fake.Calls() != 3 {
		t.Errorf("LLM calls = %d, want 3 (none past the maximum)", fake.Calls())
	}

	// The limit is per minute: past 8 requests (16 if a minute turns meanwhile) bob is refused.
	for i := range 17 {
		status, hdr, raw := call(t, "GET", stack.URL+"/agent/run/"+runID, bob.token, nil)
		if status == 404 {
			continue
		}
		want := `{"error":"RATE_LIMIT","message":"Rate limit exceeded. Please try again later."}`
		if status != 429 || string(raw) != want || hdr.Get("Retry-After") == "" || hdr.Get("X-RateLimit-Limit") != "8" {
			t.Fatalf("request %d = %d %s (Retry-After %q), want 429 %s", i+1, status, raw, hdr.Get("Retry-After"), want)
		}
		return
	}
	t.Error("17 requests at a limit of 8 were never refused")
}

// TestRunFailuresOverHTTP: the first step without a page observes without the model; a failed
// LLM call answers 503 LLM_ERROR with Retry-After and leaves the run as it was, so the client's
// retry of the same step goes on.
func TestRunFailuresOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil)})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := runClient{t, stack.URL, login(t, stack.URL, "ada@example.com", "a long enough passphrase")}
	runID := ada.start("autonomous")

	if status, step := ada.step(runID, nil, nil); status != 200 || step.Action != "execute_tool" || step.Tool.Name != "observe" || fake.Calls() != 0 {
		t.Fatalf("first step without a page = %d %+v after %d LLM calls, want observe without the model", status, step, fake.Calls())
	}
	for range 3 {
		fake.Fail(500)
	}
	status, hdr, raw := call(t, "POST", stack.URL+"/agent/run/"+runID+"/step", ada.token, map[string]any{"snapshot": snapshot("https://shop.example/"), "lastActionResult": map[string]any{"success": true}})
	want := `{"error":"LLM_ERROR","message":"The language model is unavailable: the provider answered with status 500. The run is unchanged: retry the step."}`
	if status != 503 || string(raw) != want || hdr.Get("Retry-After") == "" {
		t.Fatalf("step with a failing LLM = %d %s (Retry-After %q), want 503 %s with Retry-After", status, raw, hdr.Get("Retry-After"), want)
	}
	if got := ada.get(runID).State; got.Status != "running" || got.CurrentStep != 1 || len(got.History) != 1 {
		t.Errorf("run after the failure = %s at step %d with %d entries, want it unchanged (running, step 1)", got.Status, got.CurrentStep, len(got.History))
	}
	fake.Reply(toolReply("click", `{"id":"agent-2"}`))
	if status, step := ada.step(runID, snapshot("https://shop.example/"), map[string]any{"success": true}); status != 200 || step.Tool == nil || step.Tool.Name != "click" || step.State.CurrentStep != 2 {
		t.Errorf("retried step = %d %+v, want the click at step 2", status, step)
	}
}
