package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/secret"
)

// FromConfig builds the Tavily client at cold start. The key comes from TAVILY_API_KEY; when
// that is empty and TAVILY_API_KEY_SECRET_ARN is set, it is read once from Secrets Manager
// through secrets (nil: a client from the default AWS configuration), as a plain string or a
// JSON object {"apiKey": "..."}. Without either the error matches ErrNotConfigured.
func FromConfig(ctx context.Context, cfg config.Config, secrets secret.Getter) (*Client, error) {
	key := cfg.TavilyAPIKey
	if key == "" {
		if cfg.TavilyAPIKeySecret == "" {
			return nil, fmt.Errorf("%w: set %s or %s", ErrNotConfigured, config.EnvTavilyAPIKey, config.EnvTavilyAPIKeySecret)
		}
		if secrets == nil {
			var err error
			if secrets, err = secret.NewGetter(ctx); err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
		}
		var err error
		if key, err = secret.ReadKey(ctx, secrets, cfg.TavilyAPIKeySecret); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	return NewClient(Options{BaseURL: cfg.TavilyBaseURL, APIKey: key})
}

// Setup builds a function's Searcher at cold start over cache (searchdb.Store in the functions).
// Without a configured key the Searcher's searches fail with ErrNotConfigured and Enabled is
// false, so the function still starts (local runs have no key); a key that cannot be read is an
// error.
func Setup(ctx context.Context, cfg config.Config, cache Cache, logger *slog.Logger) (*Searcher, error) {
	s := NewSearcher(nil, cache, logger)
	c, err := FromConfig(ctx, cfg, nil)
	switch {
	case errors.Is(err, ErrNotConfigured):
		s.logger().InfoContext(ctx, "web search not configured: the agent works without it", "error", err.Error())
		s.Backend = Unconfigured{Err: err}
	case err != nil:
		return nil, err
	default:
		s.Backend = c
	}
	return s, nil
}

// Unconfigured is the Backend of a deployment without a search key: every search fails with
// the configuration error (matching ErrUnavailable and ErrNotConfigured), so the engine notes
// that search is off instead of the function failing its cold start.
type Unconfigured struct{ Err error }

// Search fails.
func (u Unconfigured) Search(context.Context, Query) ([]Item, error) {
	return nil, fmt.Errorf("%w: %w", ErrUnavailable, u.Err)
}
