package functions_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

const shopPage = `<div><h1>Shop</h1><input id="1" type="text" placeholder="Search"/><button id="2">Search</button></div>`

func llmEnv(fake *llmtest.Server, extra map[string]string) map[string]string {
	env := map[string]string{"OPENAI_BASE_URL": fake.URL(), "OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model"}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

type interactData struct {
	Thought         string `json:"thought"`
	Action          string `json:"action"`
	TaskID          string `json:"taskId"`
	SessionID       string `json:"sessionId"`
	Status          string `json:"status"`
	CurrentStep     int    `json:"currentStep"`
	HasOrgKnowledge bool   `json:"hasOrgKnowledge"`
	Usage           *struct {
		PromptTokens     int `json:"promptTokens"`
		CompletionTokens int `json:"completionTokens"`
	} `json:"usage"`
}

func interact(t *testing.T, url, token string, body map[string]any) (int, interactData, envelope) {
	t.Helper()
	status, _, raw := call(t, "POST", url+"/api/agent/interact", token, body)
	e := decode(t, raw)
	var d interactData
	if e.Success {
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
	}
	return status, d, e
}

func TestInteractOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	// More requests than the default limit of 10 follow; the limit has its own test.
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, map[string]string{"RATE_LIMIT_INTERACT": "100"})})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	createUser(t, stack, "bob@example.com", "a long enough passphrase")
	ada := login(t, stack.URL, "ada@example.com", "a long enough passphrase")
	bob := login(t, stack.URL, "bob@example.com", "a long enough passphrase")

	fake.ReplyWithUsage("<Thought>I'll type the search.</Thought><Action>setValue(1, \"wool socks\")</Action>", 100, 10)
	fake.Reply("<Thought>Now search.</Thought><Action>click(2)</Action>")
	fake.Reply("<Thought>Results are shown.</Thought><Action>finish()</Action>")

	page := map[string]any{"url": "https://shop.example/", "query": "find wool socks", "dom": shopPage}
	status, d1, e := interact(t, stack.URL, ada, page)
	if status != 200 || d1.TaskID == "" || d1.SessionID == "" || d1.Action != `setValue(1, "wool socks")` || d1.Usage == nil || d1.Usage.PromptTokens != 100 {
		t.Fatalf("step 1 = %d %+v %+v, want 200 with a task, session, the action and usage", status, d1, e)
	}
	next := map[string]any{"url": "https://shop.example/", "query": "find wool socks", "dom": shopPage, "taskId": d1.TaskID, "lastActionStatus": "success"}
	_, d2, _ := interact(t, stack.URL, ada, next)
	status, d3, _ := interact(t, stack.URL, ada, next)
	if d2.Action != "click(2)" || status != 200 || d3.Action != "finish()" || d3.Status != "completed" || d3.CurrentStep != 3 {
		t.Errorf("steps 2 and 3 = %+v / %d %+v, want click(2) then finish() completed at step 3", d2, status, d3)
	}
	if third := fake.Requests()[2].User(); !strings.Contains(third, "I'll type the search.") || !strings.Contains(third, "Now search.") {
		t.Errorf("third prompt lacks steps 1 and 2:\n%s", third)
	}

	status, _, e = interact(t, stack.URL, ada, next)
	if status != 409 || e.Code != "TASK_COMPLETED" {
		t.Errorf("step after finish = %d %s, want 409 TASK_COMPLETED", status, e.Code)
	}
	status, _, e = interact(t, stack.URL, bob, next)
	if status != 404 || e.Code != "TASK_NOT_FOUND" {
		t.Errorf("another tenant's task = %d %s, want 404 TASK_NOT_FOUND", status, e.Code)
	}

	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing url", map[string]any{"query": "q", "dom": shopPage}, "url"},
		{"relative url", map[string]any{"url": "/cart", "query": "q", "dom": shopPage}, "url"},
		{"missing dom", map[string]any{"url": "https://a.example/", "query": "q"}, "dom"},
		{"dom too long", map[string]any{"url": "https://a.example/", "query": "q", "dom": strings.Repeat("a", 500_001)}, "dom"},
		{"query too long", map[string]any{"url": "https://a.example/", "query": strings.Repeat("q", 10_001), "dom": shopPage}, "query"},
		{"bad task id", map[string]any{"url": "https://a.example/", "query": "q", "dom": shopPage, "taskId": "42"}, "taskId"},
		{"bad status", map[string]any{"url": "https://a.example/", "query": "q", "dom": shopPage, "lastActionStatus": "maybe"}, "lastActionStatus"},
		{"wrong type", map[string]any{"url": "https://a.example/", "query": 7, "dom": shopPage}, "query"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, _, e := interact(t, stack.URL, ada, tc.body)
			if status != 400 || e.Code != "VALIDATION_ERROR" || e.Details["field"] != tc.field {
				t.Errorf("got %d %s %v, want 400 VALIDATION_ERROR on %s", status, e.Code, e.Details, tc.field)
			}
		})
	}
	if status, _, e := interact(t, stack.URL, "", page); status != 401 || e.Code != "UNAUTHORIZED" {
		t.Errorf("no token = %d %s, want 401 UNAUTHORIZED", status, e.Code)
	}
}

func TestInteractWithoutLLM(t *testing.T) {
	stack := stacktest.New(t, stacktest.Options{Env: map[string]string{"OPENAI_API_KEY": ""}})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := login(t, stack.URL, "ada@example.com", "a long enough passphrase")
	status, _, e := interact(t, stack.URL, ada, map[string]any{"url": "https://shop.example/", "query": "q", "dom": shopPage})
	if status != 500 || e.Code != "LLM_ERROR" || !strings.Contains(e.Message, "No language model is configured") ||
		!strings.Contains(e.Message, "OPENAI_API_KEY") || e.Details["reason"] != "not_configured" {
		t.Errorf("interact without an LLM = %d %s %q %v, want 500 LLM_ERROR saying no model is configured and naming OPENAI_API_KEY", status, e.Code, e.Message, e.Details)
	}
}

// A fresh tenant firing 14 concurrent interact requests at the default limit of 10 sees exactly
// 10 pass and the rest refused with Retry-After, per minute window: each answer's
// X-RateLimit-Reset names the window that counted it, so a burst that straddles two windows is
// judged window by window instead of waited out.
func TestInteractRateLimit(t *testing.T) {
	fake := llmtest.New(t)
	fake.SetDefault("<Thought>Clicking.</Thought><Action>click(2)</Action>")
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil)})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := login(t, stack.URL, "ada@example.com", "a long enough passphrase")
	type tally struct{ passed, refused int }
	var mu sync.Mutex
	windows := map[string]*tally{}
	var wg sync.WaitGroup
	for range 14 {
		wg.Go(func() {
			status, hdr, _ := call(t, "POST", stack.URL+"/api/agent/interact", ada, map[string]any{"url": "https://shop.example/", "query": "q", "dom": shopPage})
			if status == 429 && hdr.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
			reset := hdr.Get("X-RateLimit-Reset")
			if reset == "" || (status != 200 && status != 429) {
				t.Errorf("answer %d with X-RateLimit-Reset %q, want 200 or 429 with the window's reset", status, reset)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			w := windows[reset]
			if w == nil {
				w = &tally{}
				windows[reset] = w
			}
			if status == 200 {
				w.passed++
			} else {
				w.refused++
			}
		})
	}
	wg.Wait()
	passed := 0
	for reset, w := range windows {
		passed += w.passed
		if w.passed > 10 || (w.refused > 0 && w.passed != 10) {
			t.Errorf("window ending %s: %d passed and %d refused, want at most 10 passed and refusals only after 10", reset, w.passed, w.refused)
		}
	}
	if len(windows) == 1 && passed != 10 {
		t.Errorf("one window: %d passed, want 10 of 14", passed)
	}
}
