package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, u, contentType, body string, header map[string]string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", raw, err)
	}
	return res.StatusCode, res.Header, out
}

const chatBody = `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],"max_completion_tokens":9}`

func TestChat(t *testing.T) {
	cases := []struct {
		name       string
		script     func(*Server)
		path       string
		body       string
		wantStatus int
		wantInBody string
	}{
		{"empty script answers 500", func(*Server) {}, "/chat/completions", chatBody, 500, "no scripted reply"},
		{"default reply", func(s *Server) { s.SetDefault("fallback") }, "/chat/completions", chatBody, 200, `"content":"fallback"`},
		{"scripted reply wins over the default", func(s *Server) { s.SetDefault("fallback"); s.Reply("first") }, "/chat/completions", chatBody, 200, `"content":"first"`},
		{"usage as given", func(s *Server) { s.ReplyWithUsage("x", 10, 2) }, "/chat/completions", chatBody, 200, `"total_tokens":12`},
		{"rate limit", func(s *Server) { s.Fail(429) }, "/chat/completions", chatBody, 429, `"code":"rate_limit_exceeded"`},
		{"missing model", func(s *Server) { s.Reply("x") }, "/chat/completions", `{"messages":[{"role":"user","content":"a"}]}`, 400, "model and messages are required"},
		{"unknown path", func(*Server) {}, "/completions", chatBody, 404, "Unknown request URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t)
			tc.script(s)
			status, _, body := post(t, s.URL()+tc.path, "application/json", tc.body, nil)
			raw, _ := json.Marshal(body)
			if status != tc.wantStatus || !strings.Contains(string(raw), tc.wantInBody) {
				t.Errorf("got %d %s, want %d containing %s", status, raw, tc.wantStatus, tc.wantInBody)
			}
		})
	}
}

func TestRecorded(t *testing.T) {
	s := New(t)
	s.Reply("ok")
	post(t, s.URL()+"/chat/completions", "application/json", chatBody, map[string]string{"Authorization": "Bearer k"})
	if s.Calls() != 1 {
		t.Fatalf("Calls() = %d, want 1", s.Calls())
	}
	r := s.Requests()[0]
	if r.System() != "sys" || r.User() != "ab" || r.MaxTokens != 9 || r.Model != "m" || r.Header.Get("Authorization") != "Bearer k" {
		t.Errorf("got %+v, want system sys, user ab, max tokens 9, model m and the header", r)
	}
}

func TestRetryAfterHeaders(t *testing.T) {
	s := New(t)
	s.FailRetryAfter(429, 1500*time.Millisecond)
	_, h, _ := post(t, s.URL()+"/chat/completions", "application/json", chatBody, nil)
	if h.Get("retry-after-ms") != "1500" || h.Get("Retry-After") != "2" {
		t.Errorf("got retry-after-ms %q, Retry-After %q; want 1500, 2", h.Get("retry-after-ms"), h.Get("Retry-After"))
	}
}

func TestGigaChatOAuth(t *testing.T) {
	const key = "a2V5"
	good := map[string]string{"Authorization": "Basic " + key, "RqUID": "6f0b1291-c7f3-43c6-bb2e-9f3efb2dc98e"}
	form := url.Values{"scope": {"GIGACHAT_API_PERS"}}.Encode()
	cases := []struct {
		name       string
		header     map[string]string
		body       string
		wantStatus int
	}{
		{"token issued", good, form, 200},
		{"wrong key", map[string]string{"Authorization": "Basic other", "RqUID": good["RqUID"]}, form, 401},
		{"no RqUID", map[string]string{"Authorization": "Basic " + key}, form, 400},
		{"bad scope", good, "scope=EVERYTHING", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewGigaChat(t, key)
			status, _, body := post(t, s.OAuthURL(), "application/x-www-form-urlencoded", tc.body, tc.header)
			if status != tc.wantStatus {
				t.Fatalf("got %d %v, want %d", status, body, tc.wantStatus)
			}
			if status == 200 {
				if body["access_token"] != "gigachat-token-1" || body["expires_at"] == nil {
					t.Errorf("got %v, want an access_token and expires_at", body)
				}
				chat, _, _ := post(t, s.URL()+"/chat/completions", "application/json", chatBody, map[string]string{"Authorization": "Bearer gigachat-token-1"})
				if chat != 500 { // authorized; the script is empty
					t.Errorf("chat with the token got %d, want 500 (no scripted reply)", chat)
				}
			}
			if chat, _, _ := post(t, s.URL()+"/chat/completions", "application/json", chatBody, nil); chat != 401 {
				t.Errorf("chat without a token got %d, want 401", chat)
			}
		})
	}
}
