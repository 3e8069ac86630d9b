package search_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/search/searchtest"
)

// fakeSecrets serves one secret value and counts the reads.
type fakeSecrets struct {
	value string
	err   error
	reads int
}

func (f *fakeSecrets) GetSecretValue(context.Context, *secretsmanager.GetSecretValueInput, ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.reads++
	if f.err != nil {
		return nil, f.err
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: &f.value}, nil
}

func TestFromConfig(t *testing.T) {
	const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tavily"
	cases := []struct {
		name          string
		key, secretID string
		secrets       *fakeSecrets
		wantReads     int
		wantNotConfig bool
		wantErrHas    string
	}{
		{"key from the environment", searchtest.Key, arn, &fakeSecrets{}, 0, false, ""},
		{"key from Secrets Manager", "", arn, &fakeSecrets{value: `{"apiKey": "` + searchtest.Key + `"}`}, 1, false, ""},
		{"neither", "", "", &fakeSecrets{}, 0, true, "TAVILY_API_KEY or TAVILY_API_KEY_SECRET_ARN"},
		{"unreadable secret", "", arn, &fakeSecrets{err: errors.New("AccessDeniedException")}, 1, false, "search: read secret " + arn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := searchtest.New(t)
			cfg := config.Config{TavilyAPIKey: tc.key, TavilyAPIKeySecret: tc.secretID, TavilyBaseURL: srv.URL()}
			c, err := search.FromConfig(context.Background(), cfg, tc.secrets)
			if tc.secrets.reads != tc.wantReads {
				t.Errorf("secret read %d times, want %d", tc.secrets.reads, tc.wantReads)
			}
			if errors.Is(err, search.ErrNotConfigured) != tc.wantNotConfig {
				t.Errorf("FromConfig() error = %v, want ErrNotConfigured %v", err, tc.wantNotConfig)
			}
			if tc.wantErrHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrHas) {
					t.Errorf("FromConfig() error = %v, want it to contain %q", err, tc.wantErrHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Search(context.Background(), search.Query{Query: "q"}); err != nil {
				t.Fatalf("Search() with the configured key: %v", err)
			}
			if got := srv.Requests()[0].Key; got != searchtest.Key {
				t.Errorf("request presented key %q, want %q", got, searchtest.Key)
			}
		})
	}
}

func TestSetup(t *testing.T) {
	srv := searchtest.New(t)
	on, err := search.Setup(context.Background(), config.Config{TavilyAPIKey: searchtest.Key, TavilyBaseURL: srv.URL()}, nil, slog.New(slog.DiscardHandler))
	if err != nil || unconfigured(on) {
		t.Fatalf("Setup() with a key = %+v, %v; want a Searcher of the configured service", on, err)
	}
	if _, err := on.Search(context.Background(), search.Request{TenantID: "ten-a", Query: "q"}); err != nil || srv.Calls() != 1 {
		t.Errorf("Search() = %v after %d calls, want a search of the configured service", err, srv.Calls())
	}

	var logs bytes.Buffer
	off, err := search.Setup(context.Background(), config.Config{}, nil, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil || !unconfigured(off) {
		t.Fatalf("Setup() without a key = %+v, %v; want an unconfigured Searcher and no error", off, err)
	}
	if _, err := off.Search(context.Background(), search.Request{TenantID: "ten-a", Query: "q"}); !errors.Is(err, search.ErrNotConfigured) {
		t.Errorf("Search() error = %v, want ErrNotConfigured", err)
	}
	if !strings.Contains(logs.String(), "web search not configured") {
		t.Errorf("log %q, want a line saying search is off", logs.String())
	}

	if _, err := search.Setup(context.Background(), config.Config{TavilyAPIKey: "k", TavilyBaseURL: "not a url"}, nil, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("Setup() with a bad base URL: error = nil, want one")
	}
}

func unconfigured(s *search.Searcher) bool {
	if s == nil {
		return false
	}
	_, off := s.Backend.(search.Unconfigured)
	return off
}
