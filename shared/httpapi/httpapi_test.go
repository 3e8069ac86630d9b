package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
)

func TestCodeStatus(t *testing.T) {
	// §14.8 and §4.16 of the contract.
	cases := map[Code]int{
		CodeUnauthorized: 401, CodeForbidden: 403, CodeValidation: 400, CodeRateLimit: 429,
		CodeNotFound: 404, CodeInternal: 500, CodeLLM: 500, CodeDatabase: 500,
		CodeInvalidActionFormat: 400, CodeInvalidRequest: 400, CodeQuotaExceeded: 429,
		CodeSessionNotFound: 404, CodeTaskNotFound: 404, CodeTaskCompleted: 409,
		CodeResourceConflict: 409, CodeExternalService: 500, CodeParse: 500,
		CodeMaxStepsExceeded: 400, CodeTimeout: 504, CodeInvalidCredentials: 401,
		CodeAccountDisabled: 403, CodePayloadTooLarge: 413, Code("SOMETHING_NEW"): 500,
	}
	for code, want := range cases {
		if got := code.Status(); got != want {
			t.Errorf("%s.Status() = %d, want %d", code, got, want)
		}
	}
}

type fieldErr struct{ field, reason string }

func (e fieldErr) Error() string       { return e.field + " " + e.reason }
func (e fieldErr) FieldName() string   { return e.field }
func (e fieldErr) FieldReason() string { return e.reason }

func TestWriteError(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
		wantRetry  string
	}{
		{"validation", Validation("url", "must be an absolute http(s) URL"), 400,
			`{"success":false,"code":"VALIDATION_ERROR","message":"Invalid request: url must be an absolute http(s) URL","details":{"field":"url","reason":"must be an absolute http(s) URL"}}`, ""},
		{"domain field error", fmt.Errorf("save: %w", fieldErr{"theme", "must be one of light, dark, system"}), 400,
			`{"success":false,"code":"VALIDATION_ERROR","message":"Invalid request: theme must be one of light, dark, system","details":{"field":"theme","reason":"must be one of light, dark, system"}}`, ""},
		{"rate limit", &Error{Code: CodeRateLimit, Message: "Rate limit exceeded. Please try again later.", RetryAfter: 42}, 429,
			`{"success":false,"code":"RATE_LIMIT","message":"Rate limit exceeded. Please try again later.","retryAfter":42}`, "42"},
		{"wrapped coded error", fmt.Errorf("interact: %w", NewError(CodeTaskNotFound, "Task not found.")), 404,
			`{"success":false,"code":"TASK_NOT_FOUND","message":"Task not found."}`, ""},
		{"plain error is a generic 500", errors.New("dial tcp 10.0.0.1:443: secret internals"), 500,
			`{"success":false,"code":"INTERNAL_ERROR","message":"An internal error occurred."}`, ""},
		{"server error hides its cause", Wrap(CodeDatabase, "A database error occurred.", errors.New("ConditionalCheckFailed on TENANT#x")), 500,
			`{"success":false,"code":"DATABASE_ERROR","message":"A database error occurred."}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			WriteError(w, httptest.NewRequest("GET", "/", nil), tc.err)
			if w.Code != tc.wantStatus {
				t.Errorf("status = %d, want %d", w.Code, tc.wantStatus)
			}
			if got := w.Body.String(); got != tc.wantBody {
				t.Errorf("body = %s\nwant %s", got, tc.wantBody)
			}
			if got := w.Header().Get("Retry-After"); got != tc.wantRetry {
				t.Errorf("Retry-After = %q, want %q", got, tc.wantRetry)
			}
			if got := w.Header().Get("Content-Type"); got != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q, want application/json; charset=utf-8", got)
			}
		})
	}
}

func TestWriteData(t *testing.T) {
	w := httptest.NewRecorder()
	WriteData(w, http.StatusCreated, map[string]string{"taskId": "t1"})
	if w.Code != http.StatusCreated {
		t.Errorf("status = %d, want 201", w.Code)
	}
	if got, want := w.Body.String(), `{"success":true,"data":{"taskId":"t1"}}`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
}

type sample struct {
	URL   string `json:"url"`
	Count int    `json:"count"`
	Err   *struct {
		Code string `json:"code"`
	} `json:"lastActionError"`
}

func TestDecodeJSON(t *testing.T) {
	cases := []struct {
		name        string
		contentType string
		body        string
		wantCode    Code
		wantField   string
	}{
		{"valid", "application/json", `{"url":"https://a.example","count":2}`, "", ""},
		{"unknown fields ignored", "application/json", `{"url":"x","extra":true}`, "", ""},
		{"no content type", "", `{"url":"x"}`, "", ""},
		{"json with charset", "application/json; charset=utf-8", `{"url":"x"}`, "", ""},
		{"empty body", "application/json", ``, CodeValidation, "body"},
		{"whitespace body", "application/json", "  \n", CodeValidation, "body"},
		{"syntax error", "application/json", `{"url":`, CodeValidation, "body"},
		{"wrong type", "application/json", `{"count":"two"}`, CodeValidation, "count"},
		{"wrong nested type", "application/json", `{"lastActionError":{"code":5}}`, CodeValidation, "lastActionError.code"},
		{"not an object", "application/json", `[1,2]`, CodeValidation, "body"},
		{"trailing data", "application/json", `{"url":"x"} {"url":"y"}`, CodeValidation, "body"},
		{"form content type", "application/x-www-form-urlencoded", `url=x`, CodeUnsupportedMediaType, ""},
		{"too large", "application/json", `{"url":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, CodePayloadTooLarge, "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			var dst sample
			err := DecodeJSON(r, &dst)
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("DecodeJSON() error = %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("DecodeJSON() error = %v, want *Error with code %s", err, tc.wantCode)
			}
			if e.Code != tc.wantCode {
				t.Errorf("code = %s, want %s", e.Code, tc.wantCode)
			}
			if got, _ := e.Details["field"].(string); got != tc.wantField {
				t.Errorf("details.field = %q, want %q", got, tc.wantField)
			}
		})
	}
}

func TestBodyAtLimitIsAccepted(t *testing.T) {
	body := `{"url":"` + strings.Repeat("a", MaxBodyBytes-10) + `"}`
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	var dst sample
	if err := DecodeJSON(r, &dst); err != nil {
		t.Fatalf("DecodeJSON(%d bytes) error = %v, want nil", len(body), err)
	}
}

func TestLoggedWritesOneLinePerRequest(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	h := Logged(logger, "POST /api/x", HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		AddLogAttrs(r.Context(), slog.String("tenantId", "ten-1"))
		return Wrap(CodeDatabase, "A database error occurred.", errors.New("boom"))
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/x", nil))

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("got %d log lines, want 1:\n%s", len(lines), buf.String())
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &entry); err != nil {
		t.Fatalf("log line is not JSON: %v", err)
	}
	want := map[string]any{"route": "POST /api/x", "method": "POST", "status": float64(500), "tenantId": "ten-1",
		"code": "DATABASE_ERROR", "error": "boom", "level": "ERROR"}
	for k, v := range want {
		if entry[k] != v {
			t.Errorf("log %s = %v, want %v", k, entry[k], v)
		}
	}
	for _, k := range []string{"requestId", "durationMs"} {
		if _, ok := entry[k]; !ok {
			t.Errorf("log line has no %s: %s", k, lines[0])
		}
	}
}

func TestLoggedRecoversPanics(t *testing.T) {
	var buf bytes.Buffer
	h := Logged(slog.New(slog.NewJSONHandler(&buf, nil)), "GET /p", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("nil map")
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/p", nil))
	if w.Code != 500 {
		t.Errorf("status = %d, want 500", w.Code)
	}
	if got, want := w.Body.String(), `{"success":false,"code":"INTERNAL_ERROR","message":"An internal error occurred."}`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
	if !strings.Contains(buf.String(), `"panic":"nil map"`) {
		t.Errorf("log = %s, want the panic value", buf.String())
	}
}

func TestClientIP(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.7:5555"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	if got := ClientIP(r); got != "192.0.2.7" {
		t.Errorf("ClientIP = %q, want 192.0.2.7 (headers are not trusted)", got)
	}
}

func TestDynamoDBFailureIsDatabaseError(t *testing.T) {
	err := fmt.Errorf("get task: %w", &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "GetItem", Err: errors.New("connection refused")})
	e := AsError(err)
	if e.Code != CodeDatabase || e.Status() != 500 || e.Message != "A database error occurred." {
		t.Errorf("AsError() = %s %d %q, want DATABASE_ERROR 500 with a generic message", e.Code, e.Status(), e.Message)
	}
}

func TestCanonicalJSON(t *testing.T) {
	cases := []struct{ name, a, b string }{
		{"key order", `{"b":1,"a":{"d":2,"c":3}}`, `{"a":{"c":3,"d":2},"b":1}`},
		{"white space", "{ \"a\" :\n [1, 2] }", `{"a":[1,2]}`},
		{"string escapes", `{"a":"\u00e9\/"}`, `{"a":"é/"}`},
	}
	for _, tc := range cases {
		if a, b := CanonicalJSON([]byte(tc.a)), CanonicalJSON([]byte(tc.b)); !bytes.Equal(a, b) {
			t.Errorf("%s: CanonicalJSON gives %s and %s, want them equal", tc.name, a, b)
		}
	}
	for _, tc := range []struct{ name, a, b string }{
		{"another value", `{"a":1}`, `{"a":2}`},
		{"another number literal", `{"a":1}`, `{"a":1.0}`},
		{"array order", `[1,2]`, `[2,1]`},
	} {
		if a, b := CanonicalJSON([]byte(tc.a)), CanonicalJSON([]byte(tc.b)); bytes.Equal(a, b) {
			t.Errorf("%s: CanonicalJSON(%s) = CanonicalJSON(%s) = %s, want them to differ", tc.name, tc.a, tc.b, a)
		}
	}
	if got := CanonicalJSON([]byte("not json")); string(got) != "not json" {
		t.Errorf("CanonicalJSON(not json) = %q, want the bytes unchanged", got)
	}
}

func TestIdempotencyKey(t *testing.T) {
	r := httptest.NewRequest("POST", "/", nil)
	if key, hash, err := IdempotencyKey(r, []byte("{}")); key != "" || hash != "" || err != nil {
		t.Errorf("no header = %q %q %v, want nothing", key, hash, err)
	}
	r.Header.Set("Idempotency-Key", "step-7")
	key, hash, err := IdempotencyKey(r, []byte("{}"))
	_, other, _ := IdempotencyKey(r, []byte(`{"snapshot":null}`))
	if key != "step-7" || len(hash) != 64 || hash == other || err != nil {
		t.Errorf("header = %q %q %v, want the key and a body hash that differs per body", key, hash, err)
	}
	// The same content in another serialization is the same request.
	_, reordered, _ := IdempotencyKey(r, []byte(`{ "lastActionResult": {"success":true}, "snapshot": null }`))
	_, canonical, _ := IdempotencyKey(r, []byte(`{"snapshot":null,"lastActionResult":{"success":true}}`))
	if reordered != canonical {
		t.Errorf("hashes of reordered keys and white space differ: %s vs %s", reordered, canonical)
	}
	r.Header.Set("Idempotency-Key", "bad\x01key")
	if _, _, err := IdempotencyKey(r, nil); err == nil {
		t.Error("a key with control characters was accepted")
	}
}
