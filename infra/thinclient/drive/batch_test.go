package drive

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// formSite is a form whose submit leads to another page.
func formSite(path string) string {
	if path == "/done" {
		return `<!doctype html><title>Done</title><body><h1>Thank you</h1></body>`
	}
	return `<!doctype html><title>Form</title><body><form action="/done">
<input name="name" placeholder="Name"><input name="email" placeholder="Email">
<button type="submit">Send</button></form></body>`
}

func batchData(actions ...string) string {
	b, _ := json.Marshal(actions)
	return fmt.Sprintf(`{"success":true,"data":{"thought":"t","action":%q,"actions":%s,"taskId":"00000000-0000-4000-8000-000000000001","sessionId":"00000000-0000-4000-8000-000000000002","status":"executing"}}`, actions[0], b)
}

func resultsOf(t *testing.T, req map[string]any) []string {
	t.Helper()
	rs, _ := req["lastActionResults"].([]any)
	var out []string
	for _, r := range rs {
		out = append(out, r.(map[string]any)["status"].(string))
	}
	return out
}

func TestInteractRunsBatchesAndStops(t *testing.T) {
	tests := []struct {
		name  string
		batch []string
		want  []string // the statuses reported in the next request
	}{
		{"every action runs", []string{`setValue(1, "Ada")`, `setValue(2, "ada@example.com")`}, []string{"success", "success"}},
		{"a failure stops the batch", []string{`setValue(1, "Ada")`, "click(99)", `setValue(2, "x")`}, []string{"success", "failure", "skipped"}},
		{"a navigation stops the batch", []string{`setValue(1, "Ada")`, "click(3)", `setValue(2, "late")`}, []string{"success", "success", "skipped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, api, tab, site := setupSite(t, formSite, batchData(tt.batch...), interactData("finish()", "completed"))
			tr := Interact(context.Background(), api, tab, Task{Text: "Send the form", StartURL: site, Batch: true})
			if tr.End != Finished || len(tr.Steps) != 2 || tr.Steps[0].Actions != len(tt.batch) {
				t.Fatalf("got %+v, want two steps, the first with %d actions", tr, len(tt.batch))
			}
			first, second := fake.requests[0], fake.requests[1]
			if caps, _ := first["capabilities"].([]any); len(caps) != 1 || caps[0] != "actionBatch" {
				t.Errorf("first request capabilities = %v, want [actionBatch]", first["capabilities"])
			}
			if got := resultsOf(t, second); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("reported outcomes = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRunRunsToolBatches(t *testing.T) {
	fake, api, tab, site := setupSite(t, formSite,
		`{"runId":"r1","success":true}`,
		`{"action":"execute_tool","tool":{"name":"type","parameters":{"id":"agent-1","text":"Ada"}},"tools":[{"name":"type","parameters":{"id":"agent-1","text":"Ada"}},{"name":"click","parameters":{"id":"agent-99"}},{"name":"type","parameters":{"id":"agent-2","text":"x"}}],"state":{"status":"running"}}`,
		`{"action":"finish","result":"done","state":{"status":"completed"}}`,
	)
	tr := Run(context.Background(), api, tab, Task{Text: "x", StartURL: site, Batch: true})
	if tr.End != Finished || tr.Steps[0].Actions != 3 {
		t.Fatalf("got %+v, want finished after a step of 3 calls", tr)
	}
	if caps, _ := fake.requests[0]["capabilities"].([]any); len(caps) != 1 {
		t.Errorf("start = %v, want the actionBatch capability", fake.requests[0])
	}
	parts, _ := fake.requests[2]["lastActionResults"].([]any)
	if len(parts) != 3 || parts[0].(map[string]any)["success"] != true || parts[1].(map[string]any)["success"] != false || parts[2].(map[string]any)["skipped"] != true {
		t.Errorf("reported results = %v, want success, failure, skipped", parts)
	}
}
