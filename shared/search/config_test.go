package search_test

import (
	"context"
	"errors"
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
