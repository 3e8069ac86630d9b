package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

const testKey = "sk-test-0123456789abcdef"

// waits records the delays Complete asked for, without sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func newTestChat(t *testing.T, baseURL string, o Options) (*Client, *waits) {
	t.Helper()
	o.BaseURL, o.Model, o.APIKey = baseURL, "test-model", testKey
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	w := &waits{}
	c.retry.Sleep = w.sleep
	return c, w
}

var hello = llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are a test."}, {Role: llm.RoleUser, Content: "Say hi."}}}

func TestCompleteRetries(t *testing.T) {
	cases := []struct {
		name       string
		script     func(*llmtest.Server)
		opts       Options
		timeout    time.Duration // of the caller's context; 0 for none
		want       string
		wantUsage  llm.Usage
		wantStatus int
		attempts   int
		minWaits   []time.Duration
		wantCause  error
	}{
		{
			name:      "success with usage",
			script:    func(s *llmtest.Server) { s.ReplyWithUsage("hi", 11, 7) },
			want:      "hi",
			wantUsage: llm.Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18},
			attempts:  1,
		},
		{
			name: "500 twice then success",
			script: func(s *llmtest.Server) {
				s.Fail(500)
				s.Fail(500)
				s.ReplyWithUsage("ok", 5, 2)
			},
			want:      "ok",
			wantUsage: llm.Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7},
			attempts:  3,
			minWaits:  []time.Duration{0, 0},
		},
		{
			name: "429 waits for Retry-After",
			script: func(s *llmtest.Server) {
				s.FailRetryAfter(429, 2*time.Second)
				s.ReplyWithUsage("ok", 1, 1)
			},
			want:      "ok",
			wantUsage: llm.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2},
			attempts:  2,
			minWaits:  []time.Duration{2 * time.Second},
		},
		{
			name: "three failures are unavailable",
			script: func(s *llmtest.Server) {
				s.Fail(503)
				s.Fail(502)
				s.Fail(500)
				s.Reply("never")
			},
			wantStatus: 500,
			attempts:   3,
			minWaits:   []time.Duration{0, 0},
		},
		{
			name: "400 is not retried",
			script: func(s *llmtest.Server) {
				s.Fail(400)
				s.Reply("never")
			},
			wantStatus: 400,
			attempts:   1,
		},
		{
			name: "401 is not retried",
			script: func(s *llmtest.Server) {
				s.Fail(401)
				s.Reply("never")
			},
			wantStatus: 401,
			attempts:   1,
		},
		{
			name: "a timed-out attempt is retried",
			script: func(s *llmtest.Server) {
				s.Hang()
				s.ReplyWithUsage("late", 3, 1)
			},
			opts:      Options{AttemptTimeout: 100 * time.Millisecond},
			want:      "late",
			wantUsage: llm.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4},
			attempts:  2,
			minWaits:  []time.Duration{0},
		},
		{
			name:       "Retry-After past the deadline ends the retries without waiting",
			script:     func(s *llmtest.Server) { s.FailRetryAfter(429, 5*time.Second) },
			opts:       Options{SafetyMargin: 100 * time.Millisecond},
			timeout:    3 * time.Second,
			wantStatus: 429,
			attempts:   1,
		},
		{
			name:       "Retry-After over the cap ends the retries without waiting",
			script:     func(s *llmtest.Server) { s.FailRetryAfter(503, maxRetryAfter+time.Second) },
			wantStatus: 503,
			attempts:   1,
		},
		{
			name: "a hanging server is cut before the caller's deadline",
			script: func(s *llmtest.Server) {
				s.Hang()
				s.Hang()
				s.Hang()
			},
			opts:      Options{SafetyMargin: 300 * time.Millisecond},
			timeout:   time.Second,
			attempts:  1,
			wantCause: context.DeadlineExceeded,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			tc.script(srv)
			tc.opts.Backoff = time.Millisecond
			c, w := newTestChat(t, srv.URL(), tc.opts)
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			res, err := c.Complete(ctx, hello)
			// The caller's context is still live when Complete gives up: it cut its own attempt.
			if ctx.Err() != nil {
				t.Errorf("Complete returned after the caller's context ended (%v), want before", ctx.Err())
			}
			if srv.Calls() != tc.attempts {
				t.Errorf("server got %d calls, want %d", srv.Calls(), tc.attempts)
			}
			got := w.all()
			if len(got) != len(tc.minWaits) {
				t.Fatalf("waits = %v, want %d of them", got, len(tc.minWaits))
			}
			for i, min := range tc.minWaits {
				if got[i] < min {
					t.Errorf("wait %d = %v, want at least %v", i, got[i], min)
				}
			}
			if tc.want != "" {
				if err != nil {
					t.Fatalf("Complete() error = %v", err)
				}
				if res.Content != tc.want || res.Usage != tc.wantUsage || res.Attempts != tc.attempts || res.Model != "test-model" {
					t.Errorf("got %+v, want content %q, usage %+v, %d attempts, model test-model", res, tc.want, tc.wantUsage, tc.attempts)
				}
				return
			}
			var llmErr *llm.Error
			if !errors.Is(err, llm.ErrUnavailable) || !errors.As(err, &llmErr) {
				t.Fatalf("Complete() error = %v, want an *llm.Error matching ErrUnavailable", err)
			}
			t.Logf("error: %v", err)
			if llmErr.Attempts != tc.attempts || llmErr.StatusCode != tc.wantStatus {
				t.Errorf("got %d attempts, status %d; want %d, %d", llmErr.Attempts, llmErr.StatusCode, tc.attempts, tc.wantStatus)
			}
			if tc.wantCause != nil && !errors.Is(err, tc.wantCause) {
				t.Errorf("error %v does not wrap %v", err, tc.wantCause)
			}
			assertNoKey(t, err, testKey)
		})
	}
}

func assertNoKey(t *testing.T, err error, key string) {
	t.Helper()
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(text, key) {
			t.Errorf("error text %q contains the key", text)
		}
	}
}

func TestCompleteConnectionErrorsAreRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, w := newTestChat(t, "http://"+addr+"/v1", Options{Backoff: time.Millisecond})
	_, err = c.Complete(context.Background(), hello)
	var llmErr *llm.Error
	if !errors.As(err, &llmErr) || !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("Complete() error = %v, want *llm.Error matching ErrUnavailable", err)
	}
	if llmErr.Attempts != 3 || llmErr.StatusCode != 0 || len(w.all()) != 2 {
		t.Errorf("got %d attempts, status %d, %d waits; want 3, 0, 2", llmErr.Attempts, llmErr.StatusCode, len(w.all()))
	}
	assertNoKey(t, err, testKey)
}

func TestCompleteCallerCancel(t *testing.T) {
	srv := llmtest.New(t)
	reached := srv.Hang()
	c, w := newTestChat(t, srv.URL(), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-reached
		cancel()
	}()
	_, err := c.Complete(ctx, hello)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("Complete() error = %v, want context.Canceled and ErrUnavailable", err)
	}
	if srv.Calls() != 1 || len(w.all()) != 0 {
		t.Errorf("got %d calls and %d waits, want 1 and 0", srv.Calls(), len(w.all()))
	}
}

func TestCompleteNoBudget(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply("never")
	c, _ := newTestChat(t, srv.URL(), Options{SafetyMargin: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := c.Complete(ctx, hello)
	var llmErr *llm.Error
	if !errors.As(err, &llmErr) || llmErr.Attempts != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Complete() error = %v, want no attempt and DeadlineExceeded", err)
	}
	if srv.Calls() != 0 {
		t.Errorf("server got %d calls, want 0", srv.Calls())
	}
}

func TestCompleteSendsTheRequest(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply("<Thought>t</Thought><Action>finish()</Action>")
	c, _ := newTestChat(t, srv.URL(), Options{})
	temp := 0.2
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "rules"},
			{Role: llm.RoleUser, Content: "first"},
			{Role: llm.RoleAssistant, Content: "earlier reply"},
			{Role: llm.RoleUser, Content: "task: buy milk"},
		},
		MaxTokens:   300,
		Temperature: &temp,
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("got %d requests, want 1", len(got))
	}
	r := got[0]
	if r.System() != "rules" || r.User() != "task: buy milk" || len(r.Messages) != 4 || r.Messages[2].Role != "assistant" {
		t.Errorf("got messages %+v, want the four sent", r.Messages)
	}
	if r.Model != "test-model" || r.MaxTokens != 300 || r.Temperature == nil || *r.Temperature != 0.2 {
		t.Errorf("got model %q, max tokens %d, temperature %v; want test-model, 300, 0.2", r.Model, r.MaxTokens, r.Temperature)
	}
	if auth := r.Header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("got Authorization %q, want the bearer key", auth)
	}
}

func TestParams(t *testing.T) {
	cases := []struct {
		name           string
		baseURL        string
		req            llm.Request
		wantErr        bool
		wantCompletion bool
	}{
		{"OpenAI gets max_completion_tokens", "https://api.openai.com/v1", llm.Request{Messages: hello.Messages, MaxTokens: 5}, false, true},
		{"others get max_tokens", "https://openrouter.ai/api/v1", llm.Request{Messages: hello.Messages, MaxTokens: 5}, false, false},
		{"no messages", "https://api.openai.com/v1", llm.Request{}, true, false},
		{"unknown role", "https://api.openai.com/v1", llm.Request{Messages: []llm.Message{{Role: "tool", Content: "x"}}}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestChat(t, tc.baseURL, Options{})
			p, err := c.params(tc.req)
			if (err != nil) != tc.wantErr {
				t.Fatalf("params() error = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if p.MaxCompletionTokens.Valid() != tc.wantCompletion || p.MaxTokens.Valid() == tc.wantCompletion {
				t.Errorf("got max_completion_tokens set %v, max_tokens set %v; want %v, %v",
					p.MaxCompletionTokens.Valid(), p.MaxTokens.Valid(), tc.wantCompletion, !tc.wantCompletion)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	for _, o := range []Options{{BaseURL: "api.openai.com/v1", Model: "m"}, {BaseURL: "https://x/v1"}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) error = nil, want one", o)
		}
	}
}
