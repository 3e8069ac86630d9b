package config

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParse(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		required []string
		wantErr  []string
	}{
		{"all present", map[string]string{EnvTasksTable: "Tasks", EnvLogLevel: "debug"}, []string{EnvTasksTable}, nil},
		{"missing required are all named", map[string]string{}, []string{EnvTasksTable, EnvAccountsTable},
			[]string{"missing required environment variables: TASKS_TABLE, ACCOUNTS_TABLE"}},
		{"blank counts as missing", map[string]string{EnvTasksTable: "  "}, []string{EnvTasksTable}, []string{"TASKS_TABLE"}},
		{"bad endpoint", map[string]string{EnvDynamoDBEndpoint: "localhost:8000"}, nil, []string{"DYNAMODB_ENDPOINT must be an absolute http(s) URL"}},
		{"bad base url", map[string]string{EnvOpenAIBaseURL: "ftp://x"}, nil, []string{"OPENAI_BASE_URL"}},
		{"bad search base url", map[string]string{EnvTavilyBaseURL: "api.tavily.com"}, nil, []string{"TAVILY_BASE_URL must be an absolute http(s) URL"}},
		{"bad log level", map[string]string{EnvLogLevel: "LOUD"}, nil, []string{"LOG_LEVEL"}},
		{"bad token lifetime", map[string]string{EnvAuthTokenTTLHours: "0"}, nil, []string{"AUTH_TOKEN_TTL_HOURS must be a positive whole number of hours"}},
		{"bad knowledge cache", map[string]string{EnvKnowledgeCacheSecs: "soon"}, nil, []string{"KNOWLEDGE_CACHE_SECONDS must be a whole number of seconds, 0 or more"}},
		{"run steps over the bound", map[string]string{EnvRunMaxSteps: "501"}, nil, []string{"RUN_MAX_STEPS must be an integer from 1 to 500"}},
		{"problems are reported together", map[string]string{EnvLogLevel: "LOUD"}, []string{EnvTasksTable}, []string{"TASKS_TABLE", "LOG_LEVEL"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(envOf(tc.env), tc.required...)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Parse() error = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse() error = nil, want one mentioning %v", tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse() error = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestParseReadsValues(t *testing.T) {
	c, err := Parse(envOf(map[string]string{
		EnvTasksTable: "T", EnvDynamoDBEndpoint: "http://127.0.0.1:8000", EnvOpenAIBaseURL: "https://api.example/v1",
		EnvOpenAIModel: "m", EnvOpenAIAPIKey: "k", EnvLogLevel: "WARN",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.TasksTable != "T" || c.DynamoDBEndpoint != "http://127.0.0.1:8000" || c.LogLevel != slog.LevelWarn {
		t.Errorf("got %+v, want the values given", c)
	}
	if !c.LLMConfigured() {
		t.Errorf("LLMConfigured() = false, want true with base URL, model and key")
	}
	c.OpenAIAPIKey = ""
	if c.LLMConfigured() {
		t.Errorf("LLMConfigured() = true, want false without a key or secret")
	}
	c.OpenAIAPIKeySecret = "arn:aws:secretsmanager:eu-west-1:1:secret:x"
	if !c.LLMConfigured() {
		t.Errorf("LLMConfigured() = false, want true with a secret ARN")
	}
}

func TestSearchConfigured(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing", map[string]string{EnvTavilyBaseURL: "https://api.tavily.com"}, false},
		{"key", map[string]string{EnvTavilyAPIKey: "tvly-k"}, true},
		{"secret", map[string]string{EnvTavilyAPIKeySecret: "arn:aws:secretsmanager:eu-west-1:1:secret:t"}, true},
		{"blank key", map[string]string{EnvTavilyAPIKey: "  "}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(envOf(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.SearchConfigured(); got != tc.want {
				t.Errorf("SearchConfigured() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestParseNumbers: unset numbers take their defaults (0 where the consumer owns the default).
func TestParseNumbers(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		wantTTL  time.Duration
		wantKC   time.Duration
		wantRuns int
	}{
		{"unset", map[string]string{}, 0, DefaultKnowledgeCacheTTL, 0},
		{"set", map[string]string{EnvAuthTokenTTLHours: "12", EnvKnowledgeCacheSecs: " 0 ", EnvRunMaxSteps: "500"}, 12 * time.Hour, 0, 500},
	}
	for _, tc := range cases {
		c, err := Parse(envOf(tc.env))
		if err != nil || c.AuthTokenTTL != tc.wantTTL || c.KnowledgeCacheTTL != tc.wantKC || c.RunMaxSteps != tc.wantRuns {
			t.Errorf("%s: got token TTL %v, knowledge cache %v, run steps %d, error %v; want %v, %v, %d",
				tc.name, c.AuthTokenTTL, c.KnowledgeCacheTTL, c.RunMaxSteps, err, tc.wantTTL, tc.wantKC, tc.wantRuns)
		}
	}
}

// TestAWSCredentials: a key or a profile in the environment counts as credentials for the SDK.
func TestAWSCredentials(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{{map[string]string{}, false}, {map[string]string{"AWS_ACCESS_KEY_ID": "AKIA"}, true}, {map[string]string{"AWS_PROFILE": "dev"}, true}} {
		if c, err := Parse(envOf(tc.env)); err != nil || c.AWSCredentials != tc.want {
			t.Errorf("Parse(%v).AWSCredentials = %v, %v; want %v", tc.env, c.AWSCredentials, err, tc.want)
		}
	}
}

// TestLookup: the sections other packages parse read the environment Parse was given.
func TestLookup(t *testing.T) {
	c, err := Parse(envOf(map[string]string{"RATE_LIMIT_INTERACT": " 12 "}))
	if err != nil || c.Lookup("RATE_LIMIT_INTERACT") != "12" || c.Lookup("RATE_LIMIT_RUNS") != "" || (Config{}).Lookup("X") != "" {
		t.Errorf("Lookup = %q, %q (error %v); want the trimmed value and empty for unset", c.Lookup("RATE_LIMIT_INTERACT"), c.Lookup("RATE_LIMIT_RUNS"), err)
	}
}
