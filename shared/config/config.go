// Package config reads the functions' configuration from the environment. The names are the ones
// template.yaml declares (DESIGN.md "Configuration names"); a function names what it requires
// and fails at cold start with one message listing everything missing or invalid.
package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"

	"github.com/screenagent/backend/shared/logging"
)

// Environment variable names.
const (
	EnvStage               = "STAGE"
	EnvTasksTable          = "TASKS_TABLE"
	EnvSessionsTable       = "SESSIONS_TABLE"
	EnvMessagesTable       = "MESSAGES_TABLE"
	EnvRateLimitsTable     = "RATE_LIMITS_TABLE"
	EnvAccountsTable       = "ACCOUNTS_TABLE"
	EnvKnowledgeTable      = "KNOWLEDGE_TABLE"
	EnvDynamoDBEndpoint    = "DYNAMODB_ENDPOINT"
	EnvOpenAIAPIKey        = "OPENAI_API_KEY"
	EnvOpenAIAPIKeySecret  = "OPENAI_API_KEY_SECRET_ARN"
	EnvOpenAIBaseURL       = "OPENAI_BASE_URL"
	EnvOpenAIModel         = "OPENAI_MODEL"
	EnvTavilyAPIKey        = "TAVILY_API_KEY"
	EnvTavilyAPIKeySecret  = "TAVILY_API_KEY_SECRET_ARN"
	EnvTavilyBaseURL       = "TAVILY_BASE_URL"
	EnvKnowledgeServiceURL = "KNOWLEDGE_SERVICE_URL"
	EnvLogLevel            = "LOG_LEVEL"
)

// Config is the functions' configuration.
type Config struct {
	Stage               string
	TasksTable          string
	SessionsTable       string
	MessagesTable       string
	RateLimitsTable     string
	AccountsTable       string
	KnowledgeTable      string
	DynamoDBEndpoint    string
	OpenAIAPIKey        string
	OpenAIAPIKeySecret  string
	OpenAIBaseURL       string
	OpenAIModel         string
	TavilyAPIKey        string
	TavilyAPIKeySecret  string
	TavilyBaseURL       string
	KnowledgeServiceURL string
	LogLevel            slog.Level
}

// LLMConfigured reports whether an LLM endpoint, model and key (or its secret) are set.
func (c Config) LLMConfigured() bool {
	return c.OpenAIBaseURL != "" && c.OpenAIModel != "" && (c.OpenAIAPIKey != "" || c.OpenAIAPIKeySecret != "")
}

// SearchConfigured reports whether a web-search key (or its secret) is set.
func (c Config) SearchConfigured() bool {
	return c.TavilyAPIKey != "" || c.TavilyAPIKeySecret != ""
}

// Load reads the configuration from the process environment; see Parse.
func Load(required ...string) (Config, error) {
	return Parse(os.Getenv, required...)
}

// Parse reads the configuration through getenv. Every name in required must be non-empty; URLs
// must be absolute http(s) URLs and the log level one of Lambda's.
func Parse(getenv func(string) string, required ...string) (Config, error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	c := Config{
		Stage:               get(EnvStage),
		TasksTable:          get(EnvTasksTable),
		SessionsTable:       get(EnvSessionsTable),
		MessagesTable:       get(EnvMessagesTable),
		RateLimitsTable:     get(EnvRateLimitsTable),
		AccountsTable:       get(EnvAccountsTable),
		KnowledgeTable:      get(EnvKnowledgeTable),
		DynamoDBEndpoint:    get(EnvDynamoDBEndpoint),
		OpenAIAPIKey:        get(EnvOpenAIAPIKey),
		OpenAIAPIKeySecret:  get(EnvOpenAIAPIKeySecret),
		OpenAIBaseURL:       get(EnvOpenAIBaseURL),
		OpenAIModel:         get(EnvOpenAIModel),
		TavilyAPIKey:        get(EnvTavilyAPIKey),
		TavilyAPIKeySecret:  get(EnvTavilyAPIKeySecret),
		TavilyBaseURL:       get(EnvTavilyBaseURL),
		KnowledgeServiceURL: get(EnvKnowledgeServiceURL),
	}
	var problems []string
	var missing []string
	for _, name := range required {
		if get(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		problems = append(problems, "missing required environment variables: "+strings.Join(missing, ", "))
	}
	for _, u := range []struct{ name, value string }{
		{EnvDynamoDBEndpoint, c.DynamoDBEndpoint},
		{EnvOpenAIBaseURL, c.OpenAIBaseURL},
		{EnvKnowledgeServiceURL, c.KnowledgeServiceURL},
		{EnvTavilyBaseURL, c.TavilyBaseURL},
	} {
		if u.value == "" {
			continue
		}
		if p, err := url.Parse(u.value); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			problems = append(problems, fmt.Sprintf("%s must be an absolute http(s) URL, got %q", u.name, u.value))
		}
	}
	level, err := logging.ParseLevel(get(EnvLogLevel))
	if err != nil {
		problems = append(problems, EnvLogLevel+": "+err.Error())
	}
	c.LogLevel = level
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("configuration: %s", strings.Join(problems, "; "))
	}
	return c, nil
}
