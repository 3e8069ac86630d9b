// Package llmtest is a fake OpenAI-compatible chat-completions server for tests across the
// repository. It speaks the real wire format, answers with scripted replies in order, and
// records every request so tests can assert what the prompt contained. NewGigaChat adds
// GigaChat's OAuth token endpoint and requires the tokens it issued.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Message is a decoded chat message.
type Message struct {
	Role    string
	Content string
}

// Recorded is one chat-completions request as the server received it.
type Recorded struct {
	Model    string
	Messages []Message
	// MaxTokens is max_tokens, or max_completion_tokens when that was sent; 0 when neither.
	MaxTokens   int
	Temperature *float64
	Header      http.Header
}

// System returns the system messages' contents, joined by newlines.
func (r Recorded) System() string { return r.joined("system") }

// User returns the last user message's content.
func (r Recorded) User() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

func (r Recorded) joined(role string) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == role {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// TokenRequest is one call of the GigaChat OAuth endpoint that carried the right key.
type TokenRequest struct {
	RqUID string
	Scope string
}

// step is one scripted answer.
type step struct {
	content          string
	promptTokens     int
	completionTokens int
	usageGiven       bool
	status           int
	retryAfter       time.Duration
	// hang, when set, is closed as the answer that never comes is reached (Hang).
	hang chan struct{}
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	srv     *httptest.Server
	closing chan struct{}
	base    string
	authKey string // non-empty in GigaChat mode

	mu            sync.Mutex
	script        []step
	fallback      *step
	requests      []Recorded
	tokenRequests []TokenRequest
	oauthFailures []int
	tokens        map[string]bool
	issued        int
}

// New starts a fake OpenAI-compatible server, closed when the test ends.
func New(t testing.TB) *Server {
	return start(t, "/v1", "")
}

// NewGigaChat starts a fake GigaChat: POST /api/v2/oauth exchanges authKey (sent as Basic
// auth, with an RqUID and a scope) for a token valid 30 minutes, and the chat API under
// /api/v1 answers only requests bearing a token it issued and has not revoked.
func NewGigaChat(t testing.TB, authKey string) *Server {
	return start(t, "/api/v1", authKey)
}

func start(t testing.TB, base, authKey string) *Server {
	s := &Server{closing: make(chan struct{}), base: base, authKey: authKey, tokens: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc(base+"/chat/completions", s.chat)
	if authKey != "" {
		mux.HandleFunc("/api/v2/oauth", s.oauth)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.closing) // releases hanging handlers, which Close would otherwise wait for
		s.srv.Close()
	})
	return s
}

// URL is the base URL to configure clients with (OPENAI_BASE_URL or GIGACHAT_BASE_URL).
func (s *Server) URL() string { return s.srv.URL + s.base }

// OAuthURL is the token endpoint of a NewGigaChat server (GIGACHAT_OAUTH_URL).
func (s *Server) OAuthURL() string { return s.srv.URL + "/api/v2/oauth" }

// Reply queues a reply with content; usage is estimated from the text.
func (s *Server) Reply(content string) { s.push(step{content: content}) }

// ReplyWithUsage queues a reply reporting the given token counts.
func (s *Server) ReplyWithUsage(content string, promptTokens, completionTokens int) {
	s.push(step{content: content, promptTokens: promptTokens, completionTokens: completionTokens, usageGiven: true})
}

// Fail queues an error answer with status (e.g. 500, 429, 400), with an OpenAI-style body.
func (s *Server) Fail(status int) { s.push(step{status: status}) }

// FailRetryAfter queues an error answer asking the client to wait d, in both retry-after-ms
// and Retry-After (whole seconds, rounded up).
func (s *Server) FailRetryAfter(status int, d time.Duration) {
	s.push(step{status: status, retryAfter: d})
}

// Hang queues an answer that never comes: the handler waits until the client gives up. The
// channel is closed when a request has reached it, for tests that act on a call in flight.
func (s *Server) Hang() <-chan struct{} {
	reached := make(chan struct{})
	s.push(step{hang: reached})
	return reached
}

// SetDefault makes the server answer content once the script is used up, instead of the
// default 500 "no scripted reply".
func (s *Server) SetDefault(content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &step{content: content}
}

// FailOAuth makes the next token request of a NewGigaChat server fail with status.
func (s *Server) FailOAuth(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oauthFailures = append(s.oauthFailures, status)
}

// RevokeTokens makes every token issued so far invalid, as an early expiry would.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// Requests returns the chat requests received so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Calls is the number of chat requests received so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// TokenRequests returns the accepted OAuth token requests so far.
func (s *Server) TokenRequests() []TokenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TokenRequest(nil), s.tokenRequests...)
}

func (s *Server) push(st step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, st)
}

// wireRequest is the part of the chat-completions request the fake reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST")
		return
	}
	if s.authKey != "" && !s.validToken(r.Header.Get("Authorization")) {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"status": 401, "message": "Unauthorized"})
		return
	}
	var in wireRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_json", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if in.Model == "" || len(in.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "model and messages are required")
		return
	}
	rec := Recorded{Model: in.Model, MaxTokens: max(in.MaxTokens, in.MaxCompletionTokens), Temperature: in.Temperature, Header: r.Header.Clone()}
	for i, m := range in.Messages {
		content, err := decodeContent(m.Content)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_type", fmt.Sprintf("messages[%d].content: %v", i, err))
			return
		}
		rec.Messages = append(rec.Messages, Message{Role: m.Role, Content: content})
	}

	s.mu.Lock()
	s.requests = append(s.requests, rec)
	n := len(s.requests)
	var st *step
	if len(s.script) > 0 {
		first := s.script[0]
		st = &first
		s.script = s.script[1:]
	} else {
		st = s.fallback
	}
	s.mu.Unlock()

	switch {
	case st == nil:
		writeError(w, http.StatusInternalServerError, "server_error", "", "llmtest: no scripted reply")
	case st.hang != nil:
		close(st.hang)
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
	case st.status != 0:
		if st.retryAfter > 0 {
			w.Header().Set("retry-after-ms", strconv.FormatInt(st.retryAfter.Milliseconds(), 10))
			w.Header().Set("Retry-After", strconv.FormatInt(int64((st.retryAfter+time.Second-1)/time.Second), 10))
		}
		failure(w, st.status, r.Header.Get("Authorization"))
	default:
		prompt, completion := st.promptTokens, st.completionTokens
		if !st.usageGiven {
			prompt, completion = estimate(rec.Messages), estimateText(st.content)
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id":      fmt.Sprintf("chatcmpl-llmtest-%d", n),
			"object":  "chat.completion",
			"created": time.Now().Unix(),
			"model":   in.Model,
			"choices": []map[string]any{{
				"index":         0,
				"message":       map[string]any{"role": "assistant", "content": st.content, "refusal": nil},
				"logprobs":      nil,
				"finish_reason": "stop",
			}},
			"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
		})
	}
}

// failure writes OpenAI's error body for status. A 401 quotes the credential it got, as
// OpenAI's does (masked there), so tests can check it never reaches error texts.
func failure(w http.ResponseWriter, status int, authorization string) {
	switch {
	case status == http.StatusUnauthorized:
		writeError(w, status, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+strings.TrimPrefix(authorization, "Bearer ")+".")
	case status == http.StatusTooManyRequests:
		writeError(w, status, "requests", "rate_limit_exceeded", "Rate limit reached for requests.")
	case status >= 500:
		writeError(w, status, "server_error", "", "The server had an error while processing your request.")
	default:
		writeError(w, status, "invalid_request_error", "", http.StatusText(status))
	}
}

func (s *Server) validToken(authorization string) bool {
	token, ok := strings.CutPrefix(authorization, "Bearer ")
	s.mu.Lock()
	defer s.mu.Unlock()
	return ok && s.tokens[token]
}

func (s *Server) oauth(w http.ResponseWriter, r *http.Request) {
	gigaError := func(status, code int, msg string) {
		writeJSON(w, status, map[string]any{"code": code, "message": msg})
	}
	if r.Method != http.MethodPost {
		gigaError(http.StatusMethodNotAllowed, 1, "method not allowed")
		return
	}
	if r.Header.Get("Authorization") != "Basic "+s.authKey {
		gigaError(http.StatusUnauthorized, 6, "credentials doesn't match db data")
		return
	}
	if _, err := uuid.Parse(r.Header.Get("RqUID")); err != nil || len(r.Header.Get("RqUID")) != 36 {
		gigaError(http.StatusBadRequest, 5, "RqUID is invalid")
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || r.ParseForm() != nil {
		gigaError(http.StatusBadRequest, 5, "body must be a form")
		return
	}
	scope := r.PostForm.Get("scope")
	switch scope {
	case "GIGACHAT_API_PERS", "GIGACHAT_API_B2B", "GIGACHAT_API_CORP":
	default:
		gigaError(http.StatusBadRequest, 7, "scope is invalid")
		return
	}
	s.mu.Lock()
	if len(s.oauthFailures) > 0 {
		status := s.oauthFailures[0]
		s.oauthFailures = s.oauthFailures[1:]
		s.mu.Unlock()
		gigaError(status, 0, http.StatusText(status))
		return
	}
	s.issued++
	token := fmt.Sprintf("gigachat-token-%d", s.issued)
	s.tokens[token] = true
	s.tokenRequests = append(s.tokenRequests, TokenRequest{RqUID: r.Header.Get("RqUID"), Scope: scope})
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": token, "expires_at": time.Now().Add(30 * time.Minute).UnixMilli()})
}

// decodeContent accepts a message content as a string or as an array of text parts.
func decodeContent(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("want a string or an array of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// estimate approximates prompt tokens (about four characters each, plus per-message overhead).
func estimate(msgs []Message) int {
	n := 3
	for _, m := range msgs {
		n += 4 + estimateText(m.Content)
	}
	return n
}

func estimateText(s string) int { return (len(s) + 3) / 4 }

func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	var c any
	if code != "" {
		c = code
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
