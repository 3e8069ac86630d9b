// Package provider is the LLM client the functions that call the LLM build at cold start: any
// OpenAI-compatible endpoint (OpenAI, OpenRouter, Groq, local servers) through openai-go, and
// GigaChat through its OAuth token exchange. It keeps every call inside the caller's deadline,
// retries transient failures itself, and reports usage, latency and attempts. Only the functions
// that call the LLM import it: openai-go alone weighs more than a whole function without it.
package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/screenagent/backend/shared/httpretry"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/tracing"
)

// Defaults of Options (the attempt timeout's is llm.DefaultAttemptTimeout).
const (
	DefaultSafetyMargin = time.Second
	DefaultBackoff      = 500 * time.Millisecond
)

const (
	// maxAttempts is the first call and two retries.
	maxAttempts = 3
	// minAttempt is the least time worth starting a call with: a chat completion rarely comes
	// back faster, so a shorter attempt would only spend the caller's budget.
	minAttempt = 500 * time.Millisecond
	// maxRetryAfter bounds how long a server may ask us to wait; a longer ask ends the retries.
	maxRetryAfter = 10 * time.Second
)

// TokenSource supplies a bearer token per call (GigaChat's OAuth tokens). Invalidate drops a
// token the server refused, so the next Token fetches a new one.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
	Invalidate(token string)
}

// Options configure a Client.
type Options struct {
	// Provider names the endpoint in Info and errors; default "openai".
	Provider string
	BaseURL  string
	Model    string
	// APIKey is sent as the bearer token unless Tokens is set.
	APIKey string
	Tokens TokenSource
	// HTTPClient defaults to a traced http.Client.
	HTTPClient *http.Client
	// AttemptTimeout bounds each HTTP call; a call also ends SafetyMargin before the context's
	// deadline, which leaves the caller time to write its state.
	AttemptTimeout time.Duration
	SafetyMargin   time.Duration
	// Backoff is the base delay before the first retry; it doubles for the second, with jitter.
	Backoff time.Duration
}

// Client is a chat-completions client for an OpenAI-compatible endpoint.
type Client struct {
	completions openai.ChatCompletionService
	info        llm.Info
	tokens      TokenSource
	retry       httpretry.Policy
	// maxCompletionTokens: OpenAI's own API refuses max_tokens for its reasoning models, while
	// other OpenAI-compatible servers (GigaChat, older local servers) know only max_tokens.
	maxCompletionTokens bool
}

var _ llm.Client = (*Client)(nil)

// New returns a Client for o. The SDK's own retries are off: Complete retries within the
// caller's deadline instead.
func New(o Options) (*Client, error) {
	base, err := url.Parse(o.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("llm: base URL must be an absolute http(s) URL, got %q", o.BaseURL)
	}
	if o.Model == "" {
		return nil, errors.New("llm: model is required")
	}
	if o.Provider == "" {
		o.Provider = llm.ProviderOpenAI
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = tracing.HTTPClient(&http.Client{})
	}
	c := &Client{
		// The chat-completions service alone, not openai.NewClient: it reads no OPENAI_*
		// variables behind our back, and keeps every other API out of the binary.
		completions: openai.NewChatCompletionService(
			option.WithBaseURL(o.BaseURL),
			option.WithAPIKey(o.APIKey),
			option.WithHTTPClient(hc),
			option.WithMaxRetries(0),
		),
		info:   llm.Info{Provider: o.Provider, Model: o.Model, BaseURL: o.BaseURL},
		tokens: o.Tokens,
		retry: httpretry.Policy{
			MaxAttempts:    maxAttempts,
			AttemptTimeout: orDefault(o.AttemptTimeout, llm.DefaultAttemptTimeout),
			Margin:         orDefault(o.SafetyMargin, DefaultSafetyMargin),
			MinAttempt:     minAttempt,
			Backoff:        orDefault(o.Backoff, DefaultBackoff),
			MaxRetryAfter:  maxRetryAfter,
		},
		maxCompletionTokens: base.Hostname() == "api.openai.com",
	}
	return c, nil
}

// Info describes the endpoint.
func (c *Client) Info() llm.Info { return c.info }

// Complete sends req, retrying twice on 429, 5xx, timeouts and connection errors with
// exponential backoff and jitter (or the server's Retry-After when longer). No attempt starts,
// and no wait is made, that could not finish SafetyMargin before ctx's deadline.
func (c *Client) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	params, err := c.params(req)
	if err != nil {
		return llm.Response{}, &llm.Error{Provider: c.info.Provider, Err: err}
	}
	var comp *openai.ChatCompletion
	attempts, last := c.retry.Do(ctx, func(ctx context.Context, timeout time.Duration) *httpretry.Failure {
		var f *httpretry.Failure
		comp, f = c.attempt(ctx, params, timeout)
		return f
	})
	if last == nil {
		return llm.Response{
			Content: comp.Choices[0].Message.Content,
			Usage: llm.Usage{
				PromptTokens:     int(comp.Usage.PromptTokens),
				CompletionTokens: int(comp.Usage.CompletionTokens),
				TotalTokens:      int(comp.Usage.TotalTokens),
			},
			Model:    cmp.Or(comp.Model, c.info.Model),
			Latency:  time.Since(start),
			Attempts: attempts,
		}, nil
	}
	return llm.Response{}, &llm.Error{Provider: c.info.Provider, StatusCode: last.Status, Code: last.Code, Attempts: attempts, Err: last.Err}
}

func (c *Client) params(req llm.Request) (openai.ChatCompletionNewParams, error) {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionNewParams{}, errors.New("request has no messages")
	}
	p := openai.ChatCompletionNewParams{Model: c.info.Model}
	for i, m := range req.Messages {
		switch m.Role {
		case llm.RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case llm.RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case llm.RoleAssistant:
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			return p, fmt.Errorf("message %d has unknown role %q", i, m.Role)
		}
	}
	if req.MaxTokens > 0 {
		if c.maxCompletionTokens {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	return p, nil
}

// attempt makes one HTTP call bounded by timeout.
func (c *Client) attempt(ctx context.Context, params openai.ChatCompletionNewParams, timeout time.Duration) (*openai.ChatCompletion, *httpretry.Failure) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var httpRes *http.Response
	opts := []option.RequestOption{option.WithResponseInto(&httpRes)}
	var token string
	if c.tokens != nil {
		var err error
		if token, err = c.tokens.Token(actx); err != nil {
			return nil, classify(ctx, fmt.Errorf("get token: %w", err), nil, timeout)
		}
		opts = append(opts, option.WithAPIKey(token))
	}
	comp, err := c.completions.New(actx, params, opts...)
	if err != nil {
		f := classify(ctx, err, httpRes, timeout)
		if f.Status == http.StatusUnauthorized && c.tokens != nil {
			// The token was revoked or expired early; a fresh one may well work.
			c.tokens.Invalidate(token)
			f.Retry = true
		}
		return nil, f
	}
	if len(comp.Choices) == 0 {
		return nil, &httpretry.Failure{Err: errors.New("reply has no choices")}
	}
	return comp, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
