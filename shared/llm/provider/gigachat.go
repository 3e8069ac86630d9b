package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/httpretry"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/tracing"
)

const (
	// tokenLifetime is what GigaChat documents, assumed when a reply omits expires_at.
	tokenLifetime = 30 * time.Minute
	// refreshBefore renews a token this long before it expires, so a call never starts with a
	// token that dies in flight.
	refreshBefore = time.Minute
	// maxTokenBody bounds how much of the token service's reply is read.
	maxTokenBody = 64 << 10
)

// GigaChatOptions configure GigaChat: the OAuth client-credentials exchange, then its
// OpenAI-like chat-completions API with the bearer token.
type GigaChatOptions struct {
	BaseURL  string // default llm.GigaChatBaseURL
	OAuthURL string // default llm.GigaChatOAuthURL
	// AuthKey is the project's authorization key: base64 of "client_id:client_secret".
	AuthKey string
	Scope   string // default llm.GigaChatScope
	Model   string // default llm.GigaChatModel
	// HTTPClient defaults to a traced http.Client. GigaChat's certificates chain to the Russian
	// Trusted Root CA, which a client must trust (see FromConfig's GIGACHAT_CA_CERT).
	HTTPClient *http.Client
	// Now is the clock that ages tokens; default time.Now.
	Now            func() time.Time
	AttemptTimeout time.Duration
	SafetyMargin   time.Duration
	Backoff        time.Duration
}

// NewGigaChat returns a Client for GigaChat.
func NewGigaChat(o GigaChatOptions) (*Client, error) {
	if o.AuthKey == "" {
		return nil, errors.New("llm: gigachat authorization key is required")
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = tracing.HTTPClient(&http.Client{})
	}
	oauthURL := cmp.Or(o.OAuthURL, llm.GigaChatOAuthURL)
	if u, err := url.Parse(oauthURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: gigachat OAuth URL must be an absolute http(s) URL, got %q", oauthURL)
	}
	tokens := &gigaChatTokens{
		oauthURL: oauthURL,
		authKey:  o.AuthKey,
		scope:    cmp.Or(o.Scope, llm.GigaChatScope),
		http:     hc,
		now:      o.Now,
		sem:      make(chan struct{}, 1),
	}
	if tokens.now == nil {
		tokens.now = time.Now
	}
	return New(Options{
		Provider:       llm.ProviderGigaChat,
		BaseURL:        cmp.Or(o.BaseURL, llm.GigaChatBaseURL),
		Model:          cmp.Or(o.Model, llm.GigaChatModel),
		Tokens:         tokens,
		HTTPClient:     hc,
		AttemptTimeout: o.AttemptTimeout,
		SafetyMargin:   o.SafetyMargin,
		Backoff:        o.Backoff,
	})
}

// gigaChatTokens caches GigaChat access tokens until shortly before they expire. One refresh
// runs at a time; callers arriving meanwhile wait for it (or for their context) and share its
// token.
type gigaChatTokens struct {
	oauthURL string
	authKey  string
	scope    string
	http     *http.Client
	now      func() time.Time
	// sem guards the fields below; a channel rather than a mutex so waiting honours ctx.
	sem     chan struct{}
	token   string
	expires time.Time
}

// Token returns a cached token, or exchanges the authorization key for a new one.
func (g *gigaChatTokens) Token(ctx context.Context) (string, error) {
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-g.sem }()
	if g.token != "" && g.now().Before(g.expires.Add(-refreshBefore)) {
		return g.token, nil
	}
	token, expires, err := g.exchange(ctx)
	if err != nil {
		return "", err
	}
	g.token, g.expires = token, expires
	return token, nil
}

// Invalidate forgets token if it is still the cached one.
func (g *gigaChatTokens) Invalidate(token string) {
	g.sem <- struct{}{}
	defer func() { <-g.sem }()
	if g.token == token {
		g.token = ""
	}
}

// exchange is the client-credentials call: Basic auth with the authorization key, a fresh
// RqUID, and the scope as a form field.
func (g *gigaChatTokens) exchange(ctx context.Context) (string, time.Time, error) {
	form := url.Values{"scope": {g.scope}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.oauthURL, strings.NewReader(form))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("gigachat oauth: build request: %w", err)
	}
	req.Header.Set("Authorization", "Basic "+g.authKey)
	req.Header.Set("RqUID", uuid.NewString())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	issued := g.now()
	res, err := g.http.Do(req)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("gigachat oauth: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxTokenBody))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("gigachat oauth: read reply: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return "", time.Time{}, fmt.Errorf("gigachat oauth: %w", &httpretry.StatusError{StatusCode: res.StatusCode, Header: res.Header})
	}
	var reply struct {
		AccessToken string `json:"access_token"`
		ExpiresAt   int64  `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &reply); err != nil || reply.AccessToken == "" {
		return "", time.Time{}, errors.New("gigachat oauth: reply has no access_token")
	}
	return reply.AccessToken, expiry(reply.ExpiresAt, issued), nil
}

// expiry reads expires_at, which GigaChat sends in Unix milliseconds; small values are taken
// as seconds, and a missing one as the documented lifetime from issue.
func expiry(v int64, issued time.Time) time.Time {
	switch {
	case v <= 0:
		return issued.Add(tokenLifetime)
	case v < 1e12:
		return time.Unix(v, 0)
	default:
		return time.UnixMilli(v)
	}
}
