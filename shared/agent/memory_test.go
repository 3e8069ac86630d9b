package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
)

func TestTakeInHearsEachAnswer(t *testing.T) {
	t.Parallel()
	const task = "Buy the headphones"
	answered := []tasks.UserMessage{{Text: "Yes, go ahead.", Question: "Proceed to checkout?"}}
	cases := []struct {
		name     string
		messages []tasks.UserMessage
		pending  string
		query    string
		want     string
	}{
		{"a new text answers the pending question", answered, "Pay $199?", "Yes, pay.", "Yes, pay."},
		{"the last answer's words answer a new pending question", answered, "Pay $199?", "Yes, go ahead.", "Yes, go ahead."},
		{"the last answer sent again with nothing pending is a resend", answered, "", "Yes, go ahead.", ""},
		{"the task's text is no answer", answered, "Pay $199?", task, ""},
		{"a new text with nothing pending is an instruction", answered, "", "Also add a case", "Also add a case"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := &tasks.Memory{Messages: append([]tasks.UserMessage(nil), c.messages...), Pending: c.pending}
			got := takeIn(mem, task, Request{Query: c.query}, false, 3)
			if got != c.want {
				t.Fatalf("takeIn = %q, want %q", got, c.want)
			}
			wantMessages, wantPending := len(c.messages), c.pending
			if c.want != "" {
				wantMessages, wantPending = len(c.messages)+1, ""
			}
			if len(mem.Messages) != wantMessages || mem.Pending != wantPending {
				t.Fatalf("memory = %d messages, pending %q; want %d, pending %q", len(mem.Messages), mem.Pending, wantMessages, wantPending)
			}
			if c.want != "" && mem.Messages[len(mem.Messages)-1].Question != c.pending {
				t.Fatalf("the new message answers %q, want %q", mem.Messages[len(mem.Messages)-1].Question, c.pending)
			}
		})
	}
}

// TestPasswordsGivenInWordsAreForgottenOnceTyped: a user who writes the password into the task,
// or into an answer, needs it in clear until the step that types it; after that step no prompt
// shows it, and no step or message keeps the answer's (the task's text stays as written).
func TestPasswordsGivenInWordsAreForgottenOnceTyped(t *testing.T) {
	t.Parallel()
	const first, second = "s3cret-pass-1", "n3w-pass-22"
	f := newFixture(t)
	f.llm.Reply(reply("I type the password from the task.", `setValue(6, "`+first+`")`))
	f.llm.Reply(reply("I sign in.", "click(7)"))
	f.llm.Reply(reply("It was refused.", `askUser("What is the new password?")`))
	f.llm.Reply(reply("I type the new password.", `setValue(6, "`+second+`")`))
	f.llm.Reply(reply("I sign in.", "click(7)"))
	f.llm.Reply(reply("Done.", "finish()"))
	page := Request{DOM: toggledLoginDOM, URL: "https://crm.example.com/login", Query: "Sign in as ada with the password " + first}
	ok := &tasks.Report{Status: "success"}
	r1 := f.step(t, page)
	for _, q := range []string{page.Query, page.Query, "It is " + second, page.Query, page.Query} {
		next := page
		next.TaskID, next.Query, next.Report = r1.TaskID, q, ok
		f.step(t, next)
	}
	reqs := f.llm.Requests()
	if last := reqs[len(reqs)-1].User(); strings.Count(last, "Sign in as ada with the password") != 1 {
		t.Errorf("the task's text sent again after its password was typed reads as a message of the user:\n%s", last)
	}
	cases := []struct {
		name   string
		prompt int
		secret string
		shown  bool
	}{
		{"the task's password before it is typed", 0, first, true},
		{"the task's password after it is typed", 1, first, false},
		{"the answer's password before it is typed", 3, second, true},
		{"the answer's password after it is typed", 4, second, false},
		{"the answer's password at the end", 5, second, false},
	}
	for _, c := range cases {
		if got := strings.Contains(reqs[c.prompt].User(), c.secret); got != c.shown {
			t.Errorf("%s: prompt %d shows it = %v, want %v:\n%s", c.name, c.prompt, got, c.shown, reqs[c.prompt].User())
		}
	}
	ctx := context.Background()
	task, _ := f.tasks.GetTask(ctx, alice.TenantID, r1.TaskID)
	steps, _ := f.tasks.Steps(ctx, alice.TenantID, r1.TaskID)
	for name, v := range map[string]any{"task's messages": task.Memory.Messages, "steps": steps} {
		if b, _ := json.Marshal(v); strings.Contains(string(b), second) {
			t.Errorf("the stored %s hold the answer's password: %s", name, b)
		}
	}
}

func TestStoredActionMasksOnlyValues(t *testing.T) {
	t.Parallel()
	pg := pagemodel.Parse(`<form><input id="1" name="user"/><input id="2" type="password" name="pw"/></form>`)
	cases := []struct{ name, action, want string }{
		{"a value typed into a secret field is masked", `setValue(2, "hunter2")`, `setValue(2, "` + maskedValue + `")`},
		{"a named secret keeps its name", `setValue(2, secret("crm_password"))`, `setValue(2, secret("crm_password"))`},
		{"an ordinary field keeps its value", `setValue(1, "ada")`, `setValue(1, "ada")`},
		{"another action is kept", "click(2)", "click(2)"},
	}
	for _, c := range cases {
		if got := storedAction(c.action, pg); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}
