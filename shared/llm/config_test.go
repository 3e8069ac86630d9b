package llm

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// selfSignedPEM returns a fresh CA certificate, as GIGACHAT_CA_CERT would hold.
func selfSignedPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test root"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestDescribe(t *testing.T) {
	testCA := strings.ReplaceAll(selfSignedPEM(t), "\n", `\n`)
	openai := config.Config{OpenAIBaseURL: "https://openrouter.ai/api/v1", OpenAIModel: "anthropic/claude-3.5-sonnet", OpenAIAPIKey: "k"}
	cases := []struct {
		name       string
		cfg        config.Config
		env        map[string]string
		want       Info
		notConfig  bool
		wantErrHas []string
	}{
		{"openai by default", openai, nil, Info{"openai", "anthropic/claude-3.5-sonnet", "https://openrouter.ai/api/v1"}, false, nil},
		{"openai with a secret ARN", config.Config{OpenAIBaseURL: "http://127.0.0.1:11434/v1", OpenAIModel: "llama3", OpenAIAPIKeySecret: "arn:x"},
			map[string]string{config.EnvLLMProvider: " OpenAI "}, Info{"openai", "llama3", "http://127.0.0.1:11434/v1"}, false, nil},
		{"openai missing everything", config.Config{}, nil, Info{Provider: "openai"}, true,
			[]string{"OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN"}},
		{"gigachat defaults", config.Config{}, map[string]string{config.EnvLLMProvider: "gigachat", config.EnvGigaChatAuthKey: "k"},
			Info{"gigachat", GigaChatModel, GigaChatBaseURL}, false, nil},
		{"gigachat overrides", config.Config{}, map[string]string{config.EnvLLMProvider: "gigachat", config.EnvGigaChatAuthKeySecret: "arn:x",
			config.EnvGigaChatModel: "GigaChat-2-Max", config.EnvGigaChatBaseURL: "https://giga.example/api/v1", config.EnvGigaChatCACert: testCA},
			Info{"gigachat", "GigaChat-2-Max", "https://giga.example/api/v1"}, false, nil},
		{"gigachat without a key", config.Config{}, map[string]string{config.EnvLLMProvider: "gigachat"}, Info{"gigachat", GigaChatModel, GigaChatBaseURL}, true,
			[]string{"GIGACHAT_AUTH_KEY or GIGACHAT_AUTH_KEY_SECRET_ARN"}},
		{"unknown provider", openai, map[string]string{config.EnvLLMProvider: "claude"}, Info{Provider: "claude"}, false, []string{"LLM_PROVIDER must be openai or gigachat"}},
		{"bad timeout", openai, map[string]string{config.EnvLLMTimeout: "0"}, Info{"openai", "anthropic/claude-3.5-sonnet", "https://openrouter.ai/api/v1"}, false, []string{"LLM_TIMEOUT_SECONDS"}},
		{"bad gigachat URL and certificate", config.Config{}, map[string]string{config.EnvLLMProvider: "gigachat", config.EnvGigaChatAuthKey: "k",
			config.EnvGigaChatOAuthURL: "ngw:9443/oauth", config.EnvGigaChatCACert: "not a pem"}, Info{"gigachat", GigaChatModel, GigaChatBaseURL}, false,
			[]string{"GIGACHAT_OAUTH_URL must be an absolute http(s) URL", "GIGACHAT_CA_CERT holds no PEM certificate"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			parsed, perr := config.Parse(env(tc.env))
			cfg.LLM = parsed.LLM
			got, err := Describe(cfg)
			if perr != nil {
				err = perr // config.Parse validates what it can read alone (the timeout)
			}
			if got != tc.want {
				t.Errorf("Describe() = %+v, want %+v", got, tc.want)
			}
			if errors.Is(err, ErrNotConfigured) != tc.notConfig {
				t.Errorf("Describe() error = %v, want ErrNotConfigured %v", err, tc.notConfig)
			}
			if len(tc.wantErrHas) == 0 && !tc.notConfig && err != nil {
				t.Errorf("Describe() error = %v, want nil", err)
			}
			for _, w := range tc.wantErrHas {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("Describe() error = %v, want it to contain %q", err, w)
				}
			}
		})
	}
}
