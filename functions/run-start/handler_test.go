package main

import (
	"context"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/trust"
)

type stubStarter struct {
	got    runs.StartRequest
	called bool
}

func (s *stubStarter) Start(_ context.Context, req runs.StartRequest) (runs.StartResponse, error) {
	s.got, s.called = req, true
	return runs.StartResponse{Success: true, RunID: "550e8400-e29b-41d4-a716-446655440000", State: runs.StateView{Status: runs.StatusCreated, MaxSteps: 150}}, nil
}

// TestHandler checks the run API's one validation step for /agent/run/start: every refusal in
// the contract's body, and what the service is given when the request is valid.
func TestHandler(t *testing.T) {
	invalid := func(msg string) string {
		return `{"error":"VALIDATION_ERROR","message":"Invalid request: ` + msg + `"}`
	}
	identity := runs.StartRequest{TenantID: "ten-a", UserID: "u-1", SecretNames: []trust.NamedSecret{}}
	with := func(f func(*runs.StartRequest)) *runs.StartRequest { r := identity; f(&r); return &r }
	cases := []struct {
		name, contentType, body string
		identity                bool
		wantStatus              int
		wantBody                string
		want                    *runs.StartRequest // what the service gets; nil: not checked
	}{
		{"documented request", "application/json", `{"task":"Find contact information on this page","mode":"autonomous"}`, true, 200,
			`{"success":true,"runId":"550e8400-e29b-41d4-a716-446655440000","state":{"status":"created","currentStep":0,"maxSteps":150}}`,
			with(func(r *runs.StartRequest) {
				r.Task, r.Mode = "Find contact information on this page", runs.ModeAutonomous
			})},
		{"a fetch without a content type", "text/plain;charset=UTF-8", `{"task":"t"}`, true, 200, "", with(func(r *runs.StartRequest) { r.Task = "t" })},
		{"everything the client may add", "application/json",
			`{"task":"  Book a table  ","mode":"careful","timezone":"Asia/Tokyo","locale":"ja-JP","secretNames":["pin@bank.example"],"capabilities":["somethingNewer","actionBatch"]}`,
			true, 200, "", with(func(r *runs.StartRequest) {
				r.Task, r.Mode, r.Timezone, r.Locale, r.Batch = "Book a table", runs.ModeCareful, "Asia/Tokyo", "ja-JP", true
				r.SecretNames = []trust.NamedSecret{{Name: "pin", Origin: "bank.example"}}
			})},
		{"no task", "application/json", `{"task":"   "}`, true, 400, invalid("task is required"), nil},
		{"task too long", "application/json", `{"task":"` + strings.Repeat("t", runs.MaxTask+1) + `"}`, true, 400, invalid("task must be at most 10000 characters"), nil},
		{"unknown mode", "application/json", `{"task":"t","mode":"reckless"}`, true, 400, invalid("mode must be autonomous or careful"), nil},
		{"mode of wrong type", "application/json", `{"task":"t","mode":1}`, true, 400, invalid("mode must be a string"), nil},
		{"unknown time zone", "application/json", `{"task":"t","timezone":"Mars/Olympus"}`, true, 400, "", nil},
		{"malformed locale", "application/json", `{"task":"t","locale":"not a tag!"}`, true, 400, "", nil},
		{"empty capability", "application/json", `{"task":"t","capabilities":[""]}`, true, 400, "", nil},
		{"too many capabilities", "application/json", `{"task":"t","capabilities":["a","b","c","d","e","f","g","h","i","j","k"]}`, true, 400, "", nil},
		{"malformed secret name", "application/json", `{"task":"t","secretNames":["no spaces allowed"]}`, true, 400, "", nil},
		{"not JSON", "application/json", `task=t`, true, 400, invalid("body is not valid JSON"), nil},
		{"a form", "application/x-www-form-urlencoded", `task=t`, true, 415, `{"error":"UNSUPPORTED_MEDIA_TYPE","message":"The request body must be application/json."}`, nil},
		{"no identity", "application/json", `{"task":"t"}`, false, 401, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := &stubStarter{}
			r := httptest.NewRequest("POST", "/agent/run/start", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.contentType)
			if tc.identity {
				r = r.WithContext(auth.WithIdentity(r.Context(), accounts.Identity{TenantID: "ten-a", UserID: "u-1"}, "h"))
			}
			w := httptest.NewRecorder()
			newHandler(stub).ServeHTTP(w, r)
			if w.Code != tc.wantStatus || (tc.wantBody != "" && w.Body.String() != tc.wantBody) {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
			if tc.wantStatus == 400 && !strings.HasPrefix(w.Body.String(), `{"error":"VALIDATION_ERROR","message":"Invalid request: `) {
				t.Errorf("got body %s, want a VALIDATION_ERROR naming the field", w.Body)
			}
			if stub.called != (tc.wantStatus == 200) {
				t.Errorf("service called: %v, want %v", stub.called, tc.wantStatus == 200)
			}
			if tc.want != nil && !reflect.DeepEqual(stub.got, *tc.want) {
				t.Errorf("service got %+v, want %+v", stub.got, *tc.want)
			}
		})
	}
}
