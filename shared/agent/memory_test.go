package agent

import (
	"testing"

	"github.com/screenagent/backend/shared/tasks"
)

func TestTakeInHearsEachAnswer(t *testing.T) {
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
