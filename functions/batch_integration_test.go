package functions_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

const contactPage = `<form><h1>Contact</h1><input id="1" placeholder="Name"/><input id="2" type="email" placeholder="Email"/>` +
	`<textarea id="3" placeholder="Message"></textarea><button id="4" type="submit">Send</button></form>`

const contactBatch = "<Thought>I fill the three fields and send.</Thought><Actions>\nsetValue(1, \"Ada\")\nsetValue(2, \"ada@example.com\")\n" +
	"setValue(3, \"Hello\")\nclick(4)\n</Actions>"

// TestActionBatchesOverHTTP: a client that declares actionBatch gets the whole batch on both APIs,
// one without gets one action, outcomes come back in lastActionResults, and malformed
// capabilities or results are a 400 in each API's error format.
func TestActionBatchesOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, map[string]string{"RATE_LIMIT_INTERACT": "100", "RATE_LIMIT_RUNS": "100"})})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := login(t, stack.URL, "ada@example.com", "a long enough passphrase")
	body := func(extra map[string]any) map[string]any {
		b := map[string]any{"url": "https://site.example/contact", "query": "send the contact form", "dom": contactPage}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	actionsOf := func(e envelope) []string {
		var d struct {
			Action  string   `json:"action"`
			Actions []string `json:"actions"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		return d.Actions
	}

	t.Run("interact with the capability", func(t *testing.T) {
		fake.Reply(contactBatch)
		fake.Reply("<Thought>Sent.</Thought><Action>finish()</Action>")
		status, d, e := interact(t, stack.URL, ada, body(map[string]any{"capabilities": []string{"actionBatch"}}))
		want := []string{`setValue(1, "Ada")`, `setValue(2, "ada@example.com")`, `setValue(3, "Hello")`, "click(4)"}
		if got := actionsOf(e); status != 200 || d.Action != want[0] || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("answer = %d %q %q, want 200 with action %q and actions %q", status, d.Action, got, want[0], want)
		}
		results := []map[string]any{
			{"action": want[0], "status": "success"}, {"action": want[1], "status": "success"},
			{"action": want[2], "status": "success"}, {"action": want[3], "status": "success"},
		}
		status, d2, _ := interact(t, stack.URL, ada, body(map[string]any{"taskId": d.TaskID, "capabilities": []string{"actionBatch"}, "lastActionResults": results}))
		if status != 200 || d2.Status != "completed" || d2.CurrentStep != 2 {
			t.Errorf("second step = %d %+v, want the task completed in 2 steps", status, d2)
		}
	})

	t.Run("interact without the capability", func(t *testing.T) {
		fake.Reply(contactBatch)
		status, d, e := interact(t, stack.URL, ada, body(nil))
		if got := actionsOf(e); status != 200 || d.Action != `setValue(1, "Ada")` || got != nil {
			t.Errorf("answer = %d %q %q, want the first action alone", status, d.Action, got)
		}
	})

	t.Run("interact refuses malformed batch fields", func(t *testing.T) {
		for name, extra := range map[string]map[string]any{
			"empty capability": {"capabilities": []string{""}},
			"unknown outcome":  {"lastActionResults": []map[string]any{{"action": "click(4)", "status": "done"}}},
			"no action":        {"lastActionResults": []map[string]any{{"status": "success"}}},
		} {
			status, _, e := interact(t, stack.URL, ada, body(extra))
			if status != 400 || e.Code != "VALIDATION_ERROR" {
				t.Errorf("%s: %d %+v, want 400 VALIDATION_ERROR", name, status, e)
			}
		}
	})

	c := runClient{t: t, base: stack.URL, token: ada}
	start := func(caps []string) string {
		status, b, raw := runCall(t, "POST", stack.URL+"/agent/run/start", ada, map[string]any{"task": "Buy a ticket", "mode": "careful", "capabilities": caps})
		if status != 200 || b.RunID == "" {
			t.Fatalf("start = %d %s", status, raw)
		}
		return b.RunID
	}
	toolsOf := func(raw []byte) []string {
		var b struct {
			Tools []struct {
				Name       string         `json:"name"`
				Parameters map[string]any `json:"parameters"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range b.Tools {
			out = append(out, tl.Name+":"+tl.Parameters["id"].(string))
		}
		return out
	}
	page := snapshot("https://tickets.example/details")
	page["elements"] = []map[string]any{
		{"id": "agent-1", "tag": "input", "placeholder": "Name"}, {"id": "agent-2", "tag": "input", "placeholder": "Email"},
		{"id": "agent-3", "tag": "button", "text": "Pay Now"}, {"id": "agent-4", "tag": "button", "text": "Continue"},
	}

	t.Run("run API with the capability", func(t *testing.T) {
		id := start([]string{"actionBatch"})
		fake.Reply(`{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"Ada"}},{"name":"type","arguments":{"id":"agent-2","text":"ada@example.com"}},{"name":"click","arguments":{"id":"agent-4"}}]}`)
		status, b, raw := runCall(t, "POST", stack.URL+"/agent/run/"+id+"/step", ada, map[string]any{"snapshot": page})
		if got := toolsOf(raw); status != 200 || b.Tool == nil || b.Tool.Name != "type" || strings.Join(got, ",") != "type:agent-1,type:agent-2,click:agent-4" {
			t.Fatalf("step = %d %s, want tool the first of tools type agent-1, type agent-2, click agent-4", status, raw)
		}
		fake.Reply(`{"type":"final","answer":"Booked."}`)
		results := []map[string]any{{"success": true}, {"success": false, "error": "invalid email"}, {"success": false, "skipped": true}}
		status, b, raw = runCall(t, "POST", stack.URL+"/agent/run/"+id+"/step", ada, map[string]any{"snapshot": page, "lastActionResults": results})
		if status != 200 || b.Action != "finish" {
			t.Fatalf("second step = %d %s, want finish", status, raw)
		}
		if h := c.get(id).State.History; len(h) != 2 || !strings.Contains(h[0].Observation, "Failed: invalid email") || !strings.Contains(h[0].Observation, "not run") {
			t.Errorf("history = %+v, want the batch step with each outcome", h)
		}
	})

	t.Run("run API gate asks before a held call of a batch", func(t *testing.T) {
		id := start([]string{"actionBatch"})
		fake.Reply(`{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"Ada"}},{"name":"type","arguments":{"id":"agent-2","text":"ada@example.com"}},{"name":"click","arguments":{"id":"agent-3"}}]}`)
		status, b, raw := runCall(t, "POST", stack.URL+"/agent/run/"+id+"/step", ada, map[string]any{"snapshot": page})
		if status != 200 || b.Action != "ask_user" || b.Question == "" || toolsOf(raw) != nil {
			t.Fatalf("step = %d %s, want ask_user before the payment click and nothing to run", status, raw)
		}
		var heldBody struct {
			ConfirmationID string `json:"confirmationId"`
		}
		if err := json.Unmarshal(raw, &heldBody); err != nil || heldBody.ConfirmationID == "" {
			t.Fatalf("held step %s: want a confirmationId", raw)
		}
		status, _, raw = runCall(t, "POST", stack.URL+"/agent/run/"+id+"/answer", ada, map[string]any{"approved": true, "confirmationId": heldBody.ConfirmationID})
		if got := toolsOf(raw); status != 200 || strings.Join(got, ",") != "type:agent-1,type:agent-2,click:agent-3" {
			t.Errorf("approval = %d %s, want the batch up to the held click", status, raw)
		}
	})

	t.Run("run API repeat replays the batch, then the answer, in order", func(t *testing.T) {
		// The form's page is the same page before and after it is filled (typed values are not
		// part of a page's key): the repeat must still run the batch before it answers.
		const task = "Book a ticket for Ada"
		done := snapshot("https://tickets.example/booked")
		done["visibleText"] = "Booked for Ada."
		play := func(renumber string) (tools []string, action string) {
			status, b, raw := runCall(t, "POST", stack.URL+"/agent/run/start", ada, map[string]any{"task": task, "mode": "autonomous", "capabilities": []string{"actionBatch"}})
			if status != 200 {
				t.Fatalf("start = %d %s", status, raw)
			}
			id := b.RunID
			form := snapshot("https://tickets.example/details")
			form["elements"] = []map[string]any{
				{"id": renumber + "1", "tag": "input", "placeholder": "Name"}, {"id": renumber + "2", "tag": "input", "placeholder": "Email"},
				{"id": renumber + "4", "tag": "button", "text": "Continue"},
			}
			status, _, raw = runCall(t, "POST", stack.URL+"/agent/run/"+id+"/step", ada, map[string]any{"snapshot": form})
			if status != 200 {
				t.Fatalf("step 1 = %d %s", status, raw)
			}
			tools = toolsOf(raw)
			results := []map[string]any{{"success": true}, {"success": true}, {"success": true}}
			status, b, raw = runCall(t, "POST", stack.URL+"/agent/run/"+id+"/step", ada, map[string]any{"snapshot": done, "lastActionResults": results})
			if status != 200 {
				t.Fatalf("step 2 = %d %s", status, raw)
			}
			return tools, b.Action + ":" + b.Result
		}
		fake.Reply(`{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"Ada"}},{"name":"type","arguments":{"id":"agent-2","text":"ada@example.com"}},{"name":"click","arguments":{"id":"agent-4"}}]}`)
		fake.Reply(`{"type":"final","answer":"Booked."}`)
		play("agent-")
		calls := fake.Calls()
		tools, answer := play("agent-1")
		if strings.Join(tools, ",") != "type:agent-11,type:agent-12,click:agent-14" || answer != "finish:Booked." || fake.Calls() != calls {
			t.Errorf("repeat = %q then %q after %d more LLM calls, want the batch on the renumbered ids, then finish:Booked., from the cache", tools, answer, fake.Calls()-calls)
		}
	})

	t.Run("run API without the capability", func(t *testing.T) {
		id := start(nil)
		fake.Reply(`{"type":"tool_calls","tools":[{"name":"type","arguments":{"id":"agent-1","text":"Ada"}},{"name":"click","arguments":{"id":"agent-4"}}]}`)
		status, b, raw := runCall(t, "POST", stack.URL+"/agent/run/"+id+"/step", ada, map[string]any{"snapshot": page})
		if status != 200 || b.Tool == nil || b.Tool.Name != "type" || toolsOf(raw) != nil {
			t.Errorf("step = %d %s, want the first call alone", status, raw)
		}
	})

	t.Run("run API refuses malformed batch fields", func(t *testing.T) {
		status, b, _ := runCall(t, "POST", stack.URL+"/agent/run/start", ada, map[string]any{"task": "t", "capabilities": []string{""}})
		if status != 400 || b.Error == "" {
			t.Errorf("start with an empty capability = %d %+v, want 400", status, b)
		}
		id := start([]string{"actionBatch"})
		status, b, _ = runCall(t, "POST", stack.URL+"/agent/run/"+id+"/step", ada, map[string]any{"snapshot": page, "lastActionResults": []map[string]any{{"message": "no success field"}}})
		if status != 400 || b.Error == "" {
			t.Errorf("step with a result lacking success = %d %+v, want 400", status, b)
		}
	})
}
