package runapi

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/runs"
)

func TestWriteError(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
	}{
		{"unauthorized", fmt.Errorf("%w: token expired", auth.ErrUnauthorized), 401,
			`{"error":"UNAUTHORIZED","message":"Authentication required: the access token is missing, invalid or expired."}`},
		{"not found", runs.ErrNotFound, 404, `{"error":"NOT_FOUND","message":"Run not found or expired."}`},
		{"finished", runs.ErrFinished, 409, `{"error":"RESOURCE_CONFLICT","message":"The run has already finished; start a new run."}`},
		{"waiting", runs.ErrWaitingUser, 409, `{"error":"RESOURCE_CONFLICT","message":"The run is waiting for the user's answer: POST /agent/run/{runId}/answer first."}`},
		{"not waiting", runs.ErrNotWaiting, 409, `{"error":"RESOURCE_CONFLICT","message":"The run is not waiting for an answer."}`},
		{"concurrent", fmt.Errorf("save: %w", runs.ErrConflict), 409, `{"error":"RESOURCE_CONFLICT","message":"Another request is updating this run; retry after it completes."}`},
		{"validation", &runs.ValidationError{Field: "snapshot.elements[3].text", Reason: "must be at most 200 characters, got 201"}, 400,
			`{"error":"VALIDATION_ERROR","message":"Invalid request: snapshot.elements[3].text must be at most 200 characters, got 201"}`},
		{"database", fmt.Errorf("get run: %w", &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "GetItem", Err: errors.New("refused")}), 500,
			`{"error":"DATABASE_ERROR","message":"A database error occurred."}`},
		{"no model configured", fmt.Errorf("run step: %w", &llm.NotConfiguredError{Provider: "openai", Missing: []string{"OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN"}}), 500,
			`{"error":"LLM_ERROR","message":"No language model is configured: set OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN (locally in your shell or infra/env.json; in AWS through the stack's parameters). The run is unchanged."}`},
		{"anything else", errors.New("secret internals"), 500, `{"error":"INTERNAL_ERROR","message":"An internal error occurred."}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			WriteError(w, httptest.NewRequest("POST", "/agent/run/x/step", nil), tc.err)
			if w.Code != tc.wantStatus || w.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

func TestRunID(t *testing.T) {
	const id = "550e8400-e29b-41d4-a716-446655440000"
	cases := []struct {
		path, want string
	}{
		{"/agent/run/" + id + "/step", id},
		{"/agent/run/" + id, id},
		{"/agent/run/" + strings.ToUpper(id) + "/step", ""},
		{"/agent/run/42/step", ""},
		{"/agent/run/", ""},
		{"/health", ""},
	}
	for _, tc := range cases {
		got, err := RunID(httptest.NewRequest("GET", tc.path, nil))
		if got != tc.want || (tc.want == "") != errors.Is(err, runs.ErrNotFound) {
			t.Errorf("RunID(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}
