package functions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

// call sends a request and returns the status, headers and body.
func call(t *testing.T, method, url, token string, body any) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

func createUser(t *testing.T, stack *stacktest.Stack, email, password string) accounts.User {
	t.Helper()
	hash, err := accounts.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	u, err := accountsdb.New(stack.DB.Client, stack.DB.Tables["AccountsTable"]).CreateUser(context.Background(), email, "Ada Lovelace", hash)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

type envelope struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details map[string]any  `json:"details"`
}

func decode(t *testing.T, b []byte) envelope {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("body %q is not the envelope: %v", b, err)
	}
	return e
}

func TestAuthFlowOverHTTP(t *testing.T) {
	stack := stacktest.New(t, stacktest.Options{})
	const password = "a long enough passphrase"
	u := createUser(t, stack, "ada@example.com", password)

	// login
	status, _, body := call(t, "POST", stack.URL+"/api/v1/auth/login", "", map[string]string{"email": "Ada@Example.com", "password": password})
	if status != 200 {
		t.Fatalf("login = %d %s, want 200", status, body)
	}
	var login struct {
		AccessToken string `json:"accessToken"`
		ExpiresAt   string `json:"expiresAt"`
		User        struct{ ID, Email, Name string }
		TenantID    string `json:"tenantId"`
		TenantName  string `json:"tenantName"`
	}
	if err := json.Unmarshal(decode(t, body).Data, &login); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(login.AccessToken, accounts.TokenPrefix) || login.ExpiresAt == "" || login.User.ID != u.ID ||
		login.User.Email != "ada@example.com" || login.TenantID != u.ID || login.TenantName != "Ada Lovelace" {
		t.Errorf("login data = %+v, want a token, expiry, the user and their personal tenant", login)
	}
	token := login.AccessToken

	// session
	status, _, body = call(t, "GET", stack.URL+"/api/v1/auth/session", token, nil)
	if want := `{"success":true,"data":{"user":{"id":"` + u.ID + `","email":"ada@example.com","name":"Ada Lovelace"},"tenantId":"` + u.ID + `","tenantName":"Ada Lovelace"}}`; status != 200 || string(body) != want {
		t.Errorf("session = %d %s\nwant 200 %s", status, body, want)
	}

	// preferences: defaults, save, read back, invalid
	status, hdr, body := call(t, "GET", stack.URL+"/api/v1/user/preferences", token, nil)
	var prefs accounts.Preferences
	if status != 200 || json.Unmarshal(decode(t, body).Data, &prefs) != nil || prefs != accounts.DefaultPreferences() {
		t.Errorf("preferences before saving = %d %s, want 200 with the defaults", status, body)
	}
	if hdr.Get("X-RateLimit-Limit") != "100" {
		t.Errorf("X-RateLimit-Limit = %q, want 100 on a preferences read", hdr.Get("X-RateLimit-Limit"))
	}
	saved := accounts.DefaultPreferences()
	saved.Theme, saved.Language = accounts.ThemeDark, "pt-BR"
	status, _, body = call(t, "POST", stack.URL+"/api/v1/user/preferences", token, saved)
	if status != 200 || json.Unmarshal(decode(t, body).Data, &prefs) != nil || prefs != saved {
		t.Errorf("save preferences = %d %s, want 200 with the saved object", status, body)
	}
	status, _, body = call(t, "GET", stack.URL+"/api/v1/user/preferences", token, nil)
	if status != 200 || json.Unmarshal(decode(t, body).Data, &prefs) != nil || prefs != saved {
		t.Errorf("preferences after saving = %d %s, want what was saved", status, body)
	}
	// Saving merges: {"debugMode":true} keeps the theme and language saved before.
	merged := saved
	merged.DebugMode = true
	status, _, body = call(t, "POST", stack.URL+"/api/v1/user/preferences", token, map[string]any{"debugMode": true})
	if status != 200 || json.Unmarshal(decode(t, body).Data, &prefs) != nil || prefs != merged {
		t.Errorf("save debugMode only = %d %s, want 200 with %+v", status, body, merged)
	}
	status, _, body = call(t, "POST", stack.URL+"/api/v1/user/preferences", token, map[string]any{"theme": "neon"})
	if e := decode(t, body); status != 400 || e.Code != "VALIDATION_ERROR" || e.Details["field"] != "theme" {
		t.Errorf("invalid theme = %d %s, want 400 VALIDATION_ERROR on field theme", status, body)
	}

	// logout, then the token is dead
	status, _, body = call(t, "POST", stack.URL+"/api/v1/auth/logout", token, nil)
	if status != 204 || len(body) != 0 {
		t.Errorf("logout = %d %q, want 204 with no body", status, body)
	}
	status, _, body = call(t, "GET", stack.URL+"/api/v1/auth/session", token, nil)
	if e := decode(t, body); status != 401 || e.Code != "UNAUTHORIZED" {
		t.Errorf("session after logout = %d %s, want 401 UNAUTHORIZED", status, body)
	}

	// no stored item holds a raw token
	out, err := stack.DB.Client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(stack.DB.Tables["AccountsTable"])})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range out.Items {
		if b, _ := json.Marshal(item); bytes.Contains(b, []byte(token)) {
			t.Errorf("a stored item contains the raw token: %s", b)
		}
	}
}

func TestLoginErrorsOverHTTP(t *testing.T) {
	stack := stacktest.New(t, stacktest.Options{})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")

	_, _, unknown := call(t, "POST", stack.URL+"/api/v1/auth/login", "", map[string]string{"email": "nobody@example.com", "password": "whatever it is"})
	status, _, wrong := call(t, "POST", stack.URL+"/api/v1/auth/login", "", map[string]string{"email": "ada@example.com", "password": "not the password"})
	want := `{"success":false,"code":"INVALID_CREDENTIALS","message":"Invalid email or password."}`
	if status != 401 || string(wrong) != want || string(unknown) != want {
		t.Errorf("unknown email → %s; wrong password → %d %s; want both 401 %s", unknown, status, wrong, want)
	}

	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"missing email", map[string]string{"password": "x"}, "email"},
		{"missing password", map[string]string{"email": "ada@example.com"}, "password"},
		{"bad email", map[string]string{"email": "not an email", "password": "x"}, "email"},
		{"wrong type", map[string]any{"email": 7, "password": "x"}, "email"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := call(t, "POST", stack.URL+"/api/v1/auth/login", "", tc.body)
			if e := decode(t, body); status != 400 || e.Code != "VALIDATION_ERROR" || e.Details["field"] != tc.field {
				t.Errorf("got %d %s, want 400 VALIDATION_ERROR on %s", status, body, tc.field)
			}
		})
	}

	for i := 0; i < 4; i++ {
		call(t, "POST", stack.URL+"/api/v1/auth/login", "", map[string]string{"email": "ada@example.com", "password": "guess again"})
	}
	status, hdr, body := call(t, "POST", stack.URL+"/api/v1/auth/login", "", map[string]string{"email": "ada@example.com", "password": "a long enough passphrase"})
	if e := decode(t, body); status != 429 || e.Code != "RATE_LIMIT" || hdr.Get("Retry-After") == "" {
		t.Errorf("login after 5 failures = %d %s (Retry-After %q), want 429 RATE_LIMIT with Retry-After", status, body, hdr.Get("Retry-After"))
	}
}
