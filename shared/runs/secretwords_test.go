package runs_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/runs"
)

// TestPasswordsGivenInWordsAreMaskedOnceTyped: a user who writes the password into the task, or
// into an answer, needs it in clear until the step that types it; no later prompt shows it, nor
// the run's GET view.
func TestPasswordsGivenInWordsAreMaskedOnceTyped(t *testing.T) {
	t.Parallel()
	const first, second = "s3cret-pass-1", "n3w-pass-22"
	f := newFixture(t)
	ctx := context.Background()
	started, err := f.svc.Start(ctx, runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: "Sign in with the password " + first, Mode: runs.ModeAutonomous})
	if err != nil {
		t.Fatal(err)
	}
	id := started.RunID
	f.llm.Reply(toolCall("type", `{"id":"agent-2","text":"`+first+`"}`))
	f.llm.Reply(`{"type":"ask_user","question":"The site refused it. What is the password?"}`)
	f.llm.Reply(toolCall("type", `{"id":"agent-2","text":"`+second+`"}`))
	f.llm.Reply(toolCall("click", `{"id":"agent-3"}`))
	f.step(t, id, loginPage, nil)
	f.step(t, id, loginPage, success)
	if _, err := f.svc.Answer(ctx, runs.AnswerRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Approved: true, Answer: "the password is " + second}); err != nil {
		t.Fatal(err)
	}
	f.step(t, id, loginPage, success)
	f.step(t, id, loginPage, success)

	reqs := f.llm.Requests()
	cases := []struct {
		name   string
		prompt int
		secret string
		shown  bool
	}{
		{"the task's password before it is typed", 0, first, true},
		{"the task's password after it is typed", 1, first, false},
		{"the answer's password before it is typed", 2, second, true},
		{"the answer's password after it is typed", 3, second, false},
	}
	for _, c := range cases {
		if got := strings.Contains(reqs[c.prompt].User(), c.secret); got != c.shown {
			t.Errorf("%s: prompt %d shows it = %v, want %v:\n%s", c.name, c.prompt, got, c.shown, reqs[c.prompt].User())
		}
	}
	view, err := f.svc.Get(ctx, "ten-a", "u-1", id)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(view); strings.Contains(string(b), first) || strings.Contains(string(b), second) {
		t.Errorf("GET /agent/run/{id} shows a typed password: %s", b)
	}
}
