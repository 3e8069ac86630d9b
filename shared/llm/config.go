package llm

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/config"
)

// Providers selectable with LLM_PROVIDER.
const (
	ProviderOpenAI   = "openai"
	ProviderGigaChat = "gigachat"
)

// GigaChat's public endpoints and its personal-use scope.
const (
	GigaChatBaseURL  = "https://gigachat.devices.sberbank.ru/api/v1"
	GigaChatOAuthURL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"
	GigaChatScope    = "GIGACHAT_API_PERS"
	GigaChatModel    = "GigaChat"
)

// DefaultAttemptTimeout bounds one HTTP call to the LLM unless LLM_TIMEOUT_SECONDS says otherwise.
const DefaultAttemptTimeout = 20 * time.Second

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

// Advice tells the person running the deployment what to set and where: the functions read their
// environment at start, so locally the stack must be restarted with it. It names settings, never
// values.
func (e *NotConfiguredError) Advice() string {
	example := ""
	if len(e.Missing) > 0 {
		example = strings.Fields(e.Missing[0])[0]
	}
	return fmt.Sprintf("No language model is configured: set %s in the backend's environment. Locally, restart the stack with it "+
		"(stop make run, then %s=... make run) or put it in infra/env.json; in AWS, set it through the stack's parameters.",
		strings.Join(e.Missing, " and "), example)
}

// Settings is the resolved configuration of one provider: what the client in llm/provider is built
// from. It lives here, apart from the client, so that functions which only report the
// configuration (health) do not link the client's SDK.
type Settings struct {
	Provider string
	BaseURL  string
	Model    string
	// Key is the API key (OpenAI) or authorization key (GigaChat) when the environment holds
	// it; otherwise KeySecret names the Secrets Manager secret to read it from.
	Key       string
	KeySecret string
	OAuthURL  string // GigaChat only
	Scope     string // GigaChat only
	CACert    []byte // PEM certificates to trust besides the system's (GigaChat)
	Timeout   time.Duration
}

// Info describes the endpoint the settings point at.
func (s Settings) Info() Info {
	return Info{Provider: s.Provider, Model: s.Model, BaseURL: s.BaseURL}
}

// Describe resolves the LLM configuration without any network call: what /health reports.
// The Info is filled as far as the configuration goes even when the error is non-nil.
func Describe(cfg config.Config) (Info, error) {
	s, err := Resolve(cfg)
	return s.Info(), err
}

// Resolve reads the selected provider's settings from cfg (config.Parse read the environment).
// A missing setting is an error matching ErrNotConfigured; an invalid one is another error.
// The Settings are filled as far as the configuration goes even when the error is non-nil.
func Resolve(cfg config.Config) (Settings, error) {
	l := cfg.LLM
	s := Settings{Provider: cmp.Or(l.Provider, ProviderOpenAI), Timeout: cmp.Or(l.Timeout, DefaultAttemptTimeout)}
	var problems, missing []string
	switch s.Provider {
	case ProviderOpenAI:
		s.BaseURL, s.Model, s.Key, s.KeySecret = cfg.OpenAIBaseURL, cfg.OpenAIModel, cfg.OpenAIAPIKey, cfg.OpenAIAPIKeySecret
		if s.BaseURL == "" {
			missing = append(missing, config.EnvOpenAIBaseURL)
		}
		if s.Model == "" {
			missing = append(missing, config.EnvOpenAIModel)
		}
		if s.Key == "" && s.KeySecret == "" {
			missing = append(missing, config.EnvOpenAIAPIKey+" or "+config.EnvOpenAIAPIKeySecret)
		}
	case ProviderGigaChat:
		s.BaseURL = cmp.Or(l.GigaChatBaseURL, GigaChatBaseURL)
		s.OAuthURL = cmp.Or(l.GigaChatOAuthURL, GigaChatOAuthURL)
		s.Model = cmp.Or(l.GigaChatModel, GigaChatModel)
		s.Scope = cmp.Or(l.GigaChatScope, GigaChatScope)
		s.Key, s.KeySecret = l.GigaChatAuthKey, l.GigaChatAuthKeySecret
		if s.Key == "" && s.KeySecret == "" {
			missing = append(missing, config.EnvGigaChatAuthKey+" or "+config.EnvGigaChatAuthKeySecret)
		}
		for _, u := range []struct{ name, value string }{{config.EnvGigaChatBaseURL, s.BaseURL}, {config.EnvGigaChatOAuthURL, s.OAuthURL}} {
			if p, err := url.Parse(u.value); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				problems = append(problems, fmt.Sprintf("%s must be an absolute http(s) URL, got %q", u.name, u.value))
			}
		}
		if v := l.GigaChatCACert; v != "" {
			// Tolerate the PEM's line breaks written as \n, as single-line env files need.
			s.CACert = []byte(strings.ReplaceAll(v, `\n`, "\n"))
			if !x509.NewCertPool().AppendCertsFromPEM(s.CACert) {
				problems = append(problems, config.EnvGigaChatCACert+" holds no PEM certificate")
			}
		}
	default:
		problems = append(problems, fmt.Sprintf("%s must be %s or %s, got %q", config.EnvLLMProvider, ProviderOpenAI, ProviderGigaChat, s.Provider))
	}
	if len(problems) > 0 {
		return s, fmt.Errorf("configuration: %s", strings.Join(append(problems, missingText(missing)...), "; "))
	}
	if len(missing) > 0 {
		return s, &NotConfiguredError{Provider: s.Provider, Missing: missing}
	}
	return s, nil
}

func missingText(missing []string) []string {
	if len(missing) == 0 {
		return nil
	}
	return []string{"missing " + strings.Join(missing, ", ")}
}

// Unconfigured is the Client of a deployment whose LLM is not configured: every call fails with
// the configuration error (matching ErrUnavailable too), so agent routes answer LLM_ERROR with
// a clear log line instead of failing their cold start.
type Unconfigured struct{ Err error }

// Complete fails.
func (u Unconfigured) Complete(context.Context, Request) (Response, error) {
	return Response{}, fmt.Errorf("%w: %w", ErrUnavailable, u.Err)
}
