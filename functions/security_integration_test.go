package functions_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/infra/waitbuf"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

// Secrets of the test: a value the page holds in a password field, and one the model types.
const (
	pageSecret    = "Snapshot-Pw-111"
	typedSecret   = "Typed-Secret-42"
	refusedSecret = "Refused-Pw-777"
)

// callWithKey POSTs body with an Idempotency-Key and returns the status and body.
func callWithKey(t *testing.T, url, token, key string, body any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// TestSecretsStayOutOverHTTP drives both APIs over real HTTP with a password on the page, a
// password the model types, the client echoing it back and the model repeating it, and then
// scans everything the server keeps or shows for both values: every prompt the model saw, every
// answer but the one step that types the value, the messages, the export, GET /agent/run/{id},
// the functions' log lines and every item of the tables.
func TestSecretsStayOutOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	logs := &waitbuf.Buffer{}
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil), Output: logs})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	token := login(t, stack.URL, "ada@example.com", "a long enough passphrase")
	var shown []string // every answer that must not carry a secret

	// Interact: a password field that a show-password toggle made a text field.
	dom := `<form><input id="5" type="email" name="email"/><input id="6" type="text" name="password" value="` + pageSecret + `"/><button id="7">Sign in</button></form>`
	fake.Reply(`<Thought>I type the password.</Thought><Action>setValue(6, "` + typedSecret + `")</Action>`)
	fake.Reply(`<Thought>Typing ` + typedSecret + ` failed; I need the user's password.</Thought><Action>askUser("What is your password?")</Action>`)
	firstBody := map[string]any{"url": "https://crm.example.com/login", "query": "Sign in to the CRM", "dom": dom,
		"secretNames": []string{"crm_password@crm.example.com"}}
	status, raw := callWithKey(t, stack.URL+"/api/agent/interact", token, "secrets-first-step", firstBody)
	var env envelope
	var first interactData
	if err := json.Unmarshal(raw, &env); err != nil || json.Unmarshal(env.Data, &first) != nil {
		t.Fatalf("first step = %d %s", status, raw)
	}
	if status != 200 || first.Action != `setValue(6, "`+typedSecret+`")` {
		t.Fatalf("first step = %d %s, want setValue with the typed value", status, raw)
	}
	// The client retries the step (its answer was lost): the record replays it, and the retry's
	// log line shows the action answered, masked.
	if status, again := callWithKey(t, stack.URL+"/api/agent/interact", token, "secrets-first-step", firstBody); status != 200 || !bytes.Equal(again, raw) {
		t.Errorf("retried first step = %d %s, want the first answer replayed", status, again)
	}
	status, _, raw = call(t, "POST", stack.URL+"/api/agent/interact", token, map[string]any{
		"url": "https://crm.example.com/login", "query": "Sign in to the CRM", "dom": dom, "taskId": first.TaskID,
		"lastActionStatus": "failure", "lastActionError": map[string]any{"message": `Could not type "` + typedSecret + `" into the field`, "action": first.Action}})
	if status != 200 || !strings.Contains(string(raw), `"userRequest":{"type":"credentials"`) {
		t.Errorf("second step = %d %s, want 200 asking for credentials", status, raw)
	}
	shown = append(shown, string(raw))
	for _, path := range []string{"/api/session/" + first.SessionID + "/messages", "/api/debug/session/" + first.TaskID + "/export"} {
		status, _, raw := call(t, "GET", stack.URL+path, token, nil)
		if status != 200 {
			t.Fatalf("GET %s = %d %s", path, status, raw)
		}
		shown = append(shown, string(raw))
	}

	// Interact: replies the parser refuses, typing a value into the password field; it was never
	// typed, yet the errors and the fail() that ends the step would quote it.
	fake.Reply(`<Thought>I type the password.</Thought><Action>setValue(6 "` + refusedSecret + `")</Action>`)
	fake.Reply(`<Thought>Again.</Thought><Action>setValue(6, "` + refusedSecret + `)</Action>`)
	status, _, raw = call(t, "POST", stack.URL+"/api/agent/interact", token, map[string]any{"url": "https://crm.example.com/login", "query": "Sign in", "dom": dom})
	if status != 200 || !strings.Contains(string(raw), `"action":"fail(`) {
		t.Errorf("refused step = %d %s, want 200 with fail()", status, raw)
	}
	shown = append(shown, string(raw))

	// Run API: the same with a snapshot.
	snap := map[string]any{"url": "https://crm.example.com/login", "title": "Sign in", "visibleText": "Sign in", "timestamp": 1737292800000,
		"elements": []map[string]any{
			{"id": "e1", "tag": "input", "type": "email", "name": "email"},
			{"id": "e2", "tag": "input", "type": "password", "value": pageSecret},
			{"id": "e3", "tag": "button", "text": "Sign in"},
		}}
	c := runClient{t, stack.URL, token}
	status, started, _ := runCall(t, "POST", stack.URL+"/agent/run/start", token, map[string]any{"task": "Sign in to the CRM", "mode": "autonomous", "secretNames": []string{"crm_password"}})
	if status != 200 {
		t.Fatalf("start = %d", status)
	}
	fake.Reply(`{"type":"tool_call","thought":"Typing the password.","tool":{"name":"type","arguments":{"id":"e2","text":"` + typedSecret + `"}}}`)
	fake.Reply(`{"type":"tool_call","thought":"` + typedSecret + ` did not work, I use the stored one.","tool":{"name":"type","arguments":{"id":"e2","secret":"crm_password"}}}`)
	fake.Reply(`{"type":"final","answer":"Signed in.","thought":"Done."}`)
	c.step(started.RunID, nil, nil)
	status, typed := c.step(started.RunID, snap, map[string]any{"success": true})
	if status != 200 || typed.Tool == nil || typed.Tool.Parameters["text"] != typedSecret {
		t.Fatalf("typing step = %d %+v, want type with the value", status, typed)
	}
	// The page shows the typed value back, in its text and in a field a toggle made a text field.
	echoed := map[string]any{"url": "https://crm.example.com/login", "title": "Sign in", "visibleText": "Wrong password " + typedSecret, "timestamp": 1737292800000,
		"elements": []map[string]any{
			{"id": "e1", "tag": "input", "type": "email", "name": "email"},
			{"id": "e2", "tag": "input", "type": "text", "name": "fld", "value": typedSecret},
			{"id": "e3", "tag": "button", "text": "Sign in"},
		}}
	status, _, raw = runCall(t, "POST", stack.URL+"/agent/run/"+started.RunID+"/step", token, map[string]any{"snapshot": echoed,
		"lastActionResult": map[string]any{"success": false, "error": `Could not type "` + typedSecret + `"`}})
	if status != 200 || !strings.Contains(string(raw), `"secret":"crm_password"`) {
		t.Errorf("named-secret step = %d %s, want type with the secret's name", status, raw)
	}
	shown = append(shown, string(raw))
	status, _, raw = runCall(t, "POST", stack.URL+"/agent/run/"+started.RunID+"/step", token, map[string]any{"snapshot": snap,
		"lastActionResult": map[string]any{"success": true, "message": "filled secret crm_password"}})
	shown = append(shown, string(raw))
	_, _, raw = runCall(t, "GET", stack.URL+"/agent/run/"+started.RunID, token, nil)
	shown = append(shown, string(raw))
	// Run API: replies the parser refuses, with the value where the tool's name goes.
	status, refusedRun, _ := runCall(t, "POST", stack.URL+"/agent/run/start", token, map[string]any{"task": "Sign in to the CRM", "mode": "autonomous"})
	if status != 200 {
		t.Fatalf("start = %d", status)
	}
	c.step(refusedRun.RunID, nil, nil)
	for range 2 {
		fake.Reply(`{"type":"tool_call","tool":{"name":"` + refusedSecret + `","arguments":{"id":"e2"}}}`)
	}
	status, _, raw = runCall(t, "POST", stack.URL+"/agent/run/"+refusedRun.RunID+"/step", token, map[string]any{"snapshot": snap, "lastActionResult": map[string]any{"success": true}})
	if status < 500 {
		t.Errorf("refused run step = %d %s, want a 5xx (the run is unchanged)", status, raw)
	}
	shown = append(shown, string(raw))

	for _, secret := range []string{pageSecret, typedSecret, refusedSecret} {
		for i, r := range fake.Requests() {
			if strings.Contains(r.User(), secret) || strings.Contains(r.System(), secret) {
				t.Errorf("prompt %d holds %q:\n%s", i, secret, r.User())
			}
		}
		for _, s := range shown {
			if strings.Contains(s, secret) {
				t.Errorf("an answer holds %q: %s", secret, s)
			}
		}
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the functions' log lines hold %q:\n%s", secret, logs.String())
		}
		for _, item := range tenantData(t, stack) {
			if strings.Contains(item, secret) {
				t.Errorf("a stored item holds %q: %s", secret, item)
			}
		}
	}
	if n := strings.Count(logs.String(), `"action":"setValue(6, \"••••••\")"`); n < 2 {
		t.Errorf("%d log lines show the masked action, want 2 (the first step and its replay)", n)
		var lines []string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "interact") {
				lines = append(lines, l)
			}
		}
		b, _ := json.Marshal(lines)
		t.Errorf("the interact log line does not show the masked action: %s", b)
	}
}
