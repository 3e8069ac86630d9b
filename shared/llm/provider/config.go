package provider

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/secret"
	"github.com/screenagent/backend/shared/tracing"
)

// Setup is what FromConfig needs beyond config.Config. The zero value reads the process
// environment and, only when a secret ARN is configured, AWS Secrets Manager.
type Setup struct {
	Secrets secret.Getter
}

// FromConfig builds the configured client at cold start. The key comes from OPENAI_API_KEY (or
// GIGACHAT_AUTH_KEY); when that is empty and the matching *_SECRET_ARN is set, it is read once
// from Secrets Manager, as a plain string or a JSON object {"apiKey": "..."}.
func FromConfig(ctx context.Context, cfg config.Config, setup Setup) (*Client, llm.Info, error) {
	s, err := llm.Resolve(cfg)
	if err != nil {
		return nil, s.Info(), err
	}
	if s.Key == "" {
		secrets := setup.Secrets
		if secrets == nil {
			if secrets, err = secret.NewGetter(ctx); err != nil {
				return nil, s.Info(), err
			}
		}
		if s.Key, err = secret.ReadKey(ctx, secrets, s.KeySecret); err != nil {
			return nil, s.Info(), fmt.Errorf("llm: %w", err)
		}
	}
	var c *Client
	switch s.Provider {
	case llm.ProviderGigaChat:
		hc, herr := trustingHTTPClient(s.CACert)
		if herr != nil {
			return nil, s.Info(), herr
		}
		c, err = NewGigaChat(GigaChatOptions{
			BaseURL: s.BaseURL, OAuthURL: s.OAuthURL, AuthKey: s.Key, Scope: s.Scope, Model: s.Model,
			HTTPClient: hc, AttemptTimeout: s.Timeout,
		})
	default:
		c, err = New(Options{Provider: s.Provider, BaseURL: s.BaseURL, Model: s.Model, APIKey: s.Key, AttemptTimeout: s.Timeout})
	}
	if err != nil {
		return nil, s.Info(), err
	}
	return c, c.Info(), nil
}

// Load is FromConfig for a function's cold start. Without a configured LLM the function still
// starts and its calls fail with LLM_ERROR, so a missing key shows as the contract's error, not a
// gateway 502.
func Load(ctx context.Context, cfg config.Config, logger *slog.Logger) (llm.Client, llm.Info, error) {
	c, info, err := FromConfig(ctx, cfg, Setup{})
	if errors.Is(err, llm.ErrNotConfigured) {
		logger.Warn("LLM not configured: agent steps will fail with LLM_ERROR", "error", err.Error())
		return llm.Unconfigured{Err: err}, info, nil
	}
	if err != nil {
		return nil, info, err
	}
	return c, info, nil
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
		return nil, fmt.Errorf("llm: %s holds no PEM certificate", config.EnvGigaChatCACert)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return tracing.HTTPClient(&http.Client{Transport: tr}), nil
}
