package runapi

import (
	"errors"
	"fmt"
	"net/http"
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
		{"no model configured", fmt.Errorf("run step: %w", &llm.NotConfiguredError{Provider: "openai", Missing: []string{"OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN"}}), 503,
			`{"error":"LLM_ERROR","message":"No language model is configured: set OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN in the backend's environment. Locally, restart the stack with it (stop make run, then OPENAI_API_KEY=... make run) or put it in infra/env.json; in AWS, set it through the stack's parameters. The run is unchanged."}`},
		{"anything else", errors.New("secret internals"), 500, `{"error":"INTERNAL_ERROR","message":"An internal error occurred."}`},
		{"llm", &runs.LLMError{Message: "The language model is unavailable: no reply in time. The run is unchanged: retry the step.", Err: errors.New("secret provider text")}, 503,
			`{"error":"LLM_ERROR","message":"The language model is unavailable: no reply in time. The run is unchanged: retry the step."}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			WriteError(w, httptest.NewRequest("POST", "/agent/run/x/step", nil), tc.err)
			if w.Code != tc.wantStatus || w.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
			if retry := w.Header().Get("Retry-After"); (tc.wantStatus == 503) != (retry != "") {
				t.Errorf("Retry-After = %q, want one exactly on 503", retry)
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
		{"/agent/run/" + strings.ToUpper(id) + "/step", id},
		{"/agent/run/42/step", ""},
		{"/agent/run/{" + id + "}/step", ""},
		{"/agent/run/urn:uuid:" + id, ""},
		{"/agent/run/x/step", ""},
	}
	for _, tc := range cases {
		var got string
		var err error
		mux := http.NewServeMux()
		read := func(w http.ResponseWriter, r *http.Request) {
			got, err = RunID(r)
			if err != nil {
				WriteError(w, r, err)
			}
		}
		mux.HandleFunc("GET /agent/run/{runId}", read)
		mux.HandleFunc("GET /agent/run/{runId}/step", read)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
		if tc.want != "" {
			if got != tc.want || err != nil {
				t.Errorf("RunID(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
			continue
		}
		if want := `{"error":"VALIDATION_ERROR","message":"Invalid request: runId must be a UUID"}`; w.Code != 400 || w.Body.String() != want {
			t.Errorf("RunID(%s) = %q, then %d %s; want 400 %s", tc.path, got, w.Code, w.Body, want)
		}
	}
}

func TestReadBody(t *testing.T) {
	cases := []struct {
		contentType string
		wantStatus  int
	}{
		{"", 0},
		{"application/json", 0},
		{"application/json; charset=utf-8", 0},
		{"text/plain;charset=UTF-8", 0},
		{"application/x-www-form-urlencoded", 415},
		{"multipart/form-data; boundary=x", 415},
		{"application/xml", 415},
		{"not a media type", 415},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("POST", "/agent/run/start", strings.NewReader(`{"task":"t"}`))
		if tc.contentType != "" {
			r.Header.Set("Content-Type", tc.contentType)
		}
		body, err := ReadBody(r)
		if tc.wantStatus == 0 {
			if err != nil || string(body) != `{"task":"t"}` {
				t.Errorf("Content-Type %q: %q, %v; want the body", tc.contentType, body, err)
			}
			continue
		}
		w := httptest.NewRecorder()
		WriteError(w, r, err)
		if w.Code != tc.wantStatus || !strings.Contains(w.Body.String(), `"error":"UNSUPPORTED_MEDIA_TYPE"`) {
			t.Errorf("Content-Type %q: %d %s, want %d UNSUPPORTED_MEDIA_TYPE", tc.contentType, w.Code, w.Body, tc.wantStatus)
		}
	}
}
