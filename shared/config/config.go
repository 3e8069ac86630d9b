// Package config is the one reader of the functions' environment. The names are the ones
// template.yaml declares (DESIGN.md "Configuration names"); a cold start with anything missing or
// invalid fails with one message listing all of it.
package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

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
	EnvAuthTokenTTLHours   = "AUTH_TOKEN_TTL_HOURS"
	EnvKnowledgeCacheSecs  = "KNOWLEDGE_CACHE_SECONDS"
	EnvRunMaxSteps         = "RUN_MAX_STEPS"

	// The LLM provider's settings beside the OPENAI_* ones (shared/llm reads them from Config).
	EnvLLMProvider           = "LLM_PROVIDER"        // openai (default) or gigachat
	EnvLLMTimeout            = "LLM_TIMEOUT_SECONDS" // per HTTP call
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

const (
	// DefaultKnowledgeCacheTTL covers the steps of one task on one page.
	DefaultKnowledgeCacheTTL = 30 * time.Second
	// MaxRunMaxSteps keeps a run's header, which holds all its reflections, well inside
	// DynamoDB's 400 KB item.
	MaxRunMaxSteps = 500
)

// AWSCredentialsInEnv reports whether the environment names AWS credentials (a key or a profile)
// for the SDK: without them, a local DynamoDB endpoint gets dummy ones (shared/awsconfig).
// Tools that do not load a Config (the admin CLI, the local stack) ask this.
func AWSCredentialsInEnv() bool {
	return os.Getenv("AWS_ACCESS_KEY_ID") != "" || os.Getenv("AWS_PROFILE") != ""
}

// Tables are the variables naming the tables: template.yaml's Globals give every function all of
// them, so every function requires them all and a missing one fails its cold start.
var Tables = []string{EnvTasksTable, EnvSessionsTable, EnvMessagesTable, EnvRateLimitsTable, EnvAccountsTable, EnvKnowledgeTable}

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
	// AuthTokenTTL is an access token's lifetime; 0 means the auth service's default.
	AuthTokenTTL time.Duration
	// KnowledgeCacheTTL is how long a process keeps a knowledge lookup's result (0: no cache).
	KnowledgeCacheTTL time.Duration
	// RunMaxSteps bounds new runs; 0 means the run API's default.
	RunMaxSteps int
	// LLM holds the provider's settings beside the OPENAI_* fields; shared/llm resolves them.
	LLM LLMSettings
	// AWSCredentials: the environment names AWS credentials (AWS_ACCESS_KEY_ID or AWS_PROFILE).
	AWSCredentials bool

	// lookup is where Parse read the environment: Lookup serves the sections that their own
	// packages parse (rate limits, retention), so that the environment has one reader.
	lookup func(string) string
}

// Lookup is the trimmed value of the variable name as Parse read it ("" when unset): the way
// the packages that own a section of the configuration (ratelimit, retention) read it at cold start.
func (c Config) Lookup(name string) string {
	if c.lookup == nil {
		return ""
	}
	return strings.TrimSpace(c.lookup(name))
}

// LLMSettings are the LLM settings other than OPENAI_*, as set (trimmed; "" when unset).
type LLMSettings struct {
	Provider string
	// Timeout bounds one HTTP call to the LLM; 0 means the client's default.
	Timeout                                                          time.Duration
	GigaChatAuthKey, GigaChatAuthKeySecret, GigaChatScope            string
	GigaChatOAuthURL, GigaChatBaseURL, GigaChatModel, GigaChatCACert string
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
		lookup:              getenv,
		AWSCredentials:      getenv("AWS_ACCESS_KEY_ID") != "" || getenv("AWS_PROFILE") != "",
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
	// number reads a whole number from name within [min, max] (max 0: no bound); def when unset.
	number := func(name string, def, min, max int, what string) int {
		v := get(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < min || max > 0 && n > max {
			problems = append(problems, fmt.Sprintf("%s must be %s, got %q", name, what, v))
		}
		return n
	}
	c.AuthTokenTTL = time.Duration(number(EnvAuthTokenTTLHours, 0, 1, 0, "a positive whole number of hours")) * time.Hour
	c.KnowledgeCacheTTL = time.Duration(number(EnvKnowledgeCacheSecs, int(DefaultKnowledgeCacheTTL/time.Second), 0, 0, "a whole number of seconds, 0 or more")) * time.Second
	c.RunMaxSteps = number(EnvRunMaxSteps, 0, 1, MaxRunMaxSteps, fmt.Sprintf("an integer from 1 to %d", MaxRunMaxSteps))
	c.LLM = LLMSettings{
		Provider: strings.ToLower(get(EnvLLMProvider)), GigaChatAuthKey: get(EnvGigaChatAuthKey),
		GigaChatAuthKeySecret: get(EnvGigaChatAuthKeySecret), GigaChatScope: get(EnvGigaChatScope),
		GigaChatOAuthURL: get(EnvGigaChatOAuthURL), GigaChatBaseURL: get(EnvGigaChatBaseURL),
		GigaChatModel: get(EnvGigaChatModel), GigaChatCACert: get(EnvGigaChatCACert),
	}
	if v := get(EnvLLMTimeout); v != "" {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs <= 0 || secs > 900 {
			problems = append(problems, fmt.Sprintf("%s must be a number of seconds between 0 and 900, got %q", EnvLLMTimeout, v))
		} else {
			c.LLM.Timeout = time.Duration(secs * float64(time.Second))
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
