package llm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/secret"
	"github.com/screenagent/backend/shared/tracing"
)

// Providers selectable with LLM_PROVIDER.
const (
	ProviderOpenAI   = "openai"
	ProviderGigaChat = "gigachat"
)

// Environment variables read beside config.Config's OPENAI_* names.
const (
	EnvProvider              = "LLM_PROVIDER"        // openai (default) or gigachat
	EnvTimeout               = "LLM_TIMEOUT_SECONDS" // per HTTP call; default 20
	EnvGigaChatAuthKey       = "GIGACHAT_AUTH_KEY"
	EnvGigaChatAuthKeySecret = "GIGACHAT_AUTH_KEY_SECRET_ARN"
	EnvGigaChatScope         = "GIGACHAT_SCOPE"
	EnvGigaChatOAuthURL      = "GIGACHAT_OAUTH_URL"
	EnvGigaChatBaseURL       = "GIGACHAT_BASE_URL"
	EnvGigaChatModel         = "GIGACHAT_MODEL"
	// EnvGigaChatCACert holds PEM certificates to trust besides the system's: GigaChat's chain to
	// the Russian Trusted Root CA, which no default trust store has.
	EnvGigaChatCACert = "GIGACHAT_CA_CERT"
)

// ErrNotConfigured is matched when the selected provider lacks a required setting; the error is
// a *NotConfiguredError naming the missing variables.
var ErrNotConfigured = errors.New("llm not configured")

// NotConfiguredError is the configuration error of a provider that lacks required settings.
type NotConfiguredError struct {
	Provider string
	// Missing names each missing setting, e.g. "OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN".
	Missing []string
}

func (e *NotConfiguredError) Error() string {
	return fmt.Sprintf("%v (%s): missing %s", ErrNotConfigured, e.Provider, strings.Join(e.Missing, ", "))
}

// Is makes errors.Is(err, ErrNotConfigured) hold.
func (e *NotConfiguredError) Is(target error) bool { return target == ErrNotConfigured }

// Advice tells the person running the deployment what to set. It names settings, never values.
func (e *NotConfiguredError) Advice() string {
	return fmt.Sprintf("No language model is configured: set %s (locally in your shell or infra/env.json; in AWS through the stack's parameters).",
		strings.Join(e.Missing, " and "))
}

// Setup is what FromConfig needs beyond config.Config. The zero value reads the process
// environment and, only when a secret ARN is configured, AWS Secrets Manager.
type Setup struct {
	Getenv  func(string) string
	Secrets secret.Getter
}

// settings is the resolved configuration of one provider.
type settings struct {
	provider  string
	baseURL   string
	model     string
	key       string
	keySecret string
	oauthURL  string
	scope     string
	caCert    []byte
	timeout   time.Duration
}

func (s settings) info() Info {
	return Info{Provider: s.provider, Model: s.model, BaseURL: s.baseURL}
}

// Describe resolves the LLM configuration without any network call: what /health reports.
// The Info is filled as far as the configuration goes even when the error is non-nil.
func Describe(cfg config.Config, getenv func(string) string) (Info, error) {
	s, err := resolve(cfg, getenv)
	return s.info(), err
}

// FromConfig builds the configured client at cold start. The key comes from OPENAI_API_KEY (or
// GIGACHAT_AUTH_KEY); when that is empty and the matching *_SECRET_ARN is set, it is read once
// from Secrets Manager, as a plain string or a JSON object {"apiKey": "..."}.
func FromConfig(ctx context.Context, cfg config.Config, setup Setup) (*Chat, Info, error) {
	s, err := resolve(cfg, setup.Getenv)
	if err != nil {
		return nil, s.info(), err
	}
	if s.key == "" {
		secrets := setup.Secrets
		if secrets == nil {
			if secrets, err = secret.NewGetter(ctx); err != nil {
				return nil, s.info(), err
			}
		}
		if s.key, err = secret.ReadKey(ctx, secrets, s.keySecret); err != nil {
			return nil, s.info(), fmt.Errorf("llm: %w", err)
		}
	}
	var c *Chat
	switch s.provider {
	case ProviderGigaChat:
		hc, herr := trustingHTTPClient(s.caCert)
		if herr != nil {
			return nil, s.info(), herr
		}
		c, err = NewGigaChat(GigaChatOptions{
			BaseURL: s.baseURL, OAuthURL: s.oauthURL, AuthKey: s.key, Scope: s.scope, Model: s.model,
			HTTPClient: hc, AttemptTimeout: s.timeout,
		})
	default:
		c, err = New(Options{Provider: s.provider, BaseURL: s.baseURL, Model: s.model, APIKey: s.key, AttemptTimeout: s.timeout})
	}
	if err != nil {
		return nil, s.info(), err
	}
	return c, c.Info(), nil
}

func resolve(cfg config.Config, getenv func(string) string) (settings, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	s := settings{provider: strings.ToLower(get(EnvProvider)), timeout: DefaultAttemptTimeout}
	if s.provider == "" {
		s.provider = ProviderOpenAI
	}
	var problems, missing []string
	if v := get(EnvTimeout); v != "" {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs <= 0 || secs > 900 {
			problems = append(problems, fmt.Sprintf("%s must be a number of seconds between 0 and 900, got %q", EnvTimeout, v))
		} else {
			s.timeout = time.Duration(secs * float64(time.Second))
		}
	}
	switch s.provider {
	case ProviderOpenAI:
		s.baseURL, s.model, s.key, s.keySecret = cfg.OpenAIBaseURL, cfg.OpenAIModel, cfg.OpenAIAPIKey, cfg.OpenAIAPIKeySecret
		if s.baseURL == "" {
			missing = append(missing, config.EnvOpenAIBaseURL)
		}
		if s.model == "" {
			missing = append(missing, config.EnvOpenAIModel)
		}
		if s.key == "" && s.keySecret == "" {
			missing = append(missing, config.EnvOpenAIAPIKey+" or "+config.EnvOpenAIAPIKeySecret)
		}
	case ProviderGigaChat:
		s.baseURL = orDefaultString(get(EnvGigaChatBaseURL), GigaChatBaseURL)
		s.oauthURL = orDefaultString(get(EnvGigaChatOAuthURL), GigaChatOAuthURL)
		s.model = orDefaultString(get(EnvGigaChatModel), GigaChatModel)
		s.scope = orDefaultString(get(EnvGigaChatScope), GigaChatScope)
		s.key, s.keySecret = get(EnvGigaChatAuthKey), get(EnvGigaChatAuthKeySecret)
		if s.key == "" && s.keySecret == "" {
			missing = append(missing, EnvGigaChatAuthKey+" or "+EnvGigaChatAuthKeySecret)
		}
		for _, u := range []struct{ name, value string }{{EnvGigaChatBaseURL, s.baseURL}, {EnvGigaChatOAuthURL, s.oauthURL}} {
			if p, err := url.Parse(u.value); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				problems = append(problems, fmt.Sprintf("%s must be an absolute http(s) URL, got %q", u.name, u.value))
			}
		}
		if v := get(EnvGigaChatCACert); v != "" {
			// Tolerate the PEM's line breaks written as \n, as single-line env files need.
			s.caCert = []byte(strings.ReplaceAll(v, `\n`, "\n"))
			if !x509.NewCertPool().AppendCertsFromPEM(s.caCert) {
				problems = append(problems, EnvGigaChatCACert+" holds no PEM certificate")
			}
		}
	default:
		problems = append(problems, fmt.Sprintf("%s must be %s or %s, got %q", EnvProvider, ProviderOpenAI, ProviderGigaChat, s.provider))
	}
	if len(problems) > 0 {
		return s, fmt.Errorf("configuration: %s", strings.Join(append(problems, missingText(missing)...), "; "))
	}
	if len(missing) > 0 {
		return s, &NotConfiguredError{Provider: s.provider, Missing: missing}
	}
	return s, nil
}

func missingText(missing []string) []string {
	if len(missing) == 0 {
		return nil
	}
	return []string{"missing " + strings.Join(missing, ", ")}
}

// trustingHTTPClient returns a traced client that also trusts the PEM certificates given.
func trustingHTTPClient(pem []byte) (*http.Client, error) {
	if len(pem) == 0 {
		return tracing.HTTPClient(&http.Client{}), nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("llm: %s holds no PEM certificate", EnvGigaChatCACert)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return tracing.HTTPClient(&http.Client{Transport: tr}), nil
}

// Unconfigured is the Client of a deployment whose LLM is not configured: every call fails with
// the configuration error (matching ErrUnavailable too), so agent routes answer LLM_ERROR with
// a clear log line instead of failing their cold start.
type Unconfigured struct{ Err error }

// Complete fails.
func (u Unconfigured) Complete(context.Context, Request) (Response, error) {
	return Response{}, fmt.Errorf("%w: %w", ErrUnavailable, u.Err)
}
