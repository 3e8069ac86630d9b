package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/validation"
)

func TestNewRequestRejectsWithTheContractsWords(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	ok := Input{URL: str("https://a.example/x"), Query: str("buy"), DOM: str("<button id=\"1\">Buy</button>")}
	tests := []struct {
		name          string
		edit          func(*Input)
		field, reason string
	}{
		{"no url", func(in *Input) { in.URL = nil }, "url", "is required"},
		{"long url", func(in *Input) { in.URL = str("https://a.example/" + strings.Repeat("p", MaxURL)) }, "url", "must be at most 2048 characters"},
		{"relative url", func(in *Input) { in.URL = str("/x") }, "url", "must be an absolute http(s) URL"},
		{"long query", func(in *Input) { in.Query = str(strings.Repeat("q", MaxQuery+1)) }, "query", "must be at most 10000 characters"},
		{"blank dom", func(in *Input) { in.DOM = str(" ") }, "dom", "is required"},
		{"long dom", func(in *Input) { in.DOM = str(strings.Repeat("d", MaxDOM+1)) }, "dom", "must be at most 500000 characters"},
		{"bad task", func(in *Input) { in.TaskID = "t1" }, "taskId", "must be a UUID"},
		{"bad status", func(in *Input) { in.LastActionStatus = "maybe" }, "lastActionStatus", "must be success or failure"},
		{"long error code", func(in *Input) {
			in.LastActionError = &tasks.ActionError{Code: strings.Repeat("c", MaxErrorCode+1)}
		}, "lastActionError.code", "must be at most 100 characters"},
		{"long error action", func(in *Input) {
			in.LastActionError = &tasks.ActionError{Action: strings.Repeat("a", MaxErrorAction+1)}
		}, "lastActionError.action", "must be at most 1000 characters"},
		{"unknown mode", func(in *Input) { in.Mode = "fast" }, "mode", "must be careful or autonomous"},
		{"confirmation without a task", func(in *Input) { in.ConfirmationID = "cf_1" }, "confirmationId", "approves an action of a task: send it with the task's taskId"},
		{"long confirmation", func(in *Input) {
			in.TaskID, in.ConfirmationID = "0f8fad5b-d9cb-469f-a165-70867728950e", strings.Repeat("c", MaxConfirmationID+1)
		}, "confirmationId", "must be at most 100 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := ok
			tc.edit(&in)
			_, err := NewRequest(in)
			var v *validation.Error
			if !errors.As(err, &v) || v.Field != tc.field || v.Reason != tc.reason {
				t.Errorf("got %v, want %s %s", err, tc.field, tc.reason)
			}
		})
	}
	req, err := NewRequest(ok)
	if err != nil || req.Query != "buy" || req.Report != nil || req.Mode != ModeAutonomous {
		t.Errorf("valid input: got %+v, %v", req, err)
	}
}
