package llm

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// fakeSecrets serves one secret value and counts the reads.
type fakeSecrets struct {
	mu    sync.Mutex
	value *string
	err   error
	reads []string
}

func (f *fakeSecrets) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, *in.SecretId)
	if f.err != nil {
		return nil, f.err
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: f.value}, nil
}

func ptr(s string) *string { return &s }

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
			map[string]string{EnvProvider: " OpenAI "}, Info{"openai", "llama3", "http://127.0.0.1:11434/v1"}, false, nil},
		{"openai missing everything", config.Config{}, nil, Info{Provider: "openai"}, true,
			[]string{"OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN"}},
		{"gigachat defaults", config.Config{}, map[string]string{EnvProvider: "gigachat", EnvGigaChatAuthKey: "k"},
			Info{"gigachat", GigaChatModel, GigaChatBaseURL}, false, nil},
		{"gigachat overrides", config.Config{}, map[string]string{EnvProvider: "gigachat", EnvGigaChatAuthKeySecret: "arn:x",
			EnvGigaChatModel: "GigaChat-2-Max", EnvGigaChatBaseURL: "https://giga.example/api/v1", EnvGigaChatCACert: testCA},
			Info{"gigachat", "GigaChat-2-Max", "https://giga.example/api/v1"}, false, nil},
		{"gigachat without a key", config.Config{}, map[string]string{EnvProvider: "gigachat"}, Info{"gigachat", GigaChatModel, GigaChatBaseURL}, true,
			[]string{"GIGACHAT_AUTH_KEY or GIGACHAT_AUTH_KEY_SECRET_ARN"}},
		{"unknown provider", openai, map[string]string{EnvProvider: "claude"}, Info{Provider: "claude"}, false, []string{"LLM_PROVIDER must be openai or gigachat"}},
		{"bad timeout", openai, map[string]string{EnvTimeout: "0"}, Info{"openai", "anthropic/claude-3.5-sonnet", "https://openrouter.ai/api/v1"}, false, []string{"LLM_TIMEOUT_SECONDS"}},
		{"bad gigachat URL and certificate", config.Config{}, map[string]string{EnvProvider: "gigachat", EnvGigaChatAuthKey: "k",
			EnvGigaChatOAuthURL: "ngw:9443/oauth", EnvGigaChatCACert: "not a pem"}, Info{"gigachat", GigaChatModel, GigaChatBaseURL}, false,
			[]string{"GIGACHAT_OAUTH_URL must be an absolute http(s) URL", "GIGACHAT_CA_CERT holds no PEM certificate"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Describe(tc.cfg, env(tc.env))
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

func TestFromConfigReadsTheKey(t *testing.T) {
	const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:llm-key"
	cases := []struct {
		name       string
		apiKey     string
		secret     *fakeSecrets
		wantKey    string
		wantReads  int
		wantErrHas string
	}{
		{"plain environment key", "sk-env", &fakeSecrets{}, "sk-env", 0, ""},
		{"plain secret", "", &fakeSecrets{value: ptr(" sk-plain\n")}, "sk-plain", 1, ""},
		{"JSON secret", "", &fakeSecrets{value: ptr(`{"apiKey": "sk-json", "note": "x"}`)}, "sk-json", 1, ""},
		{"JSON secret without apiKey", "", &fakeSecrets{value: ptr(`{"key": "sk-hidden"}`)}, "", 1, "is empty"},
		{"malformed JSON secret", "", &fakeSecrets{value: ptr(`{"apiKey": "sk-hidden"`)}, "", 1, "not valid JSON"},
		{"binary secret", "", &fakeSecrets{}, "", 1, "no string value"},
		{"secrets manager down", "", &fakeSecrets{err: errors.New("AccessDeniedException")}, "", 1, "read secret " + arn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply("ok")
			cfg := config.Config{OpenAIBaseURL: srv.URL(), OpenAIModel: "gpt-test", OpenAIAPIKey: tc.apiKey, OpenAIAPIKeySecret: arn}
			c, info, err := FromConfig(context.Background(), cfg, Setup{Getenv: env(nil), Secrets: tc.secret})
			if len(tc.secret.reads) != tc.wantReads {
				t.Errorf("secret read %d times, want %d", len(tc.secret.reads), tc.wantReads)
			}
			if tc.wantErrHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrHas) {
					t.Fatalf("FromConfig() error = %v, want it to contain %q", err, tc.wantErrHas)
				}
				if strings.Contains(err.Error(), "sk-hidden") {
					t.Errorf("error %q reveals the secret", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info != (Info{"openai", "gpt-test", srv.URL()}) {
				t.Errorf("got info %+v", info)
			}
			if _, err := c.Complete(context.Background(), hello); err != nil {
				t.Fatal(err)
			}
			if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+tc.wantKey {
				t.Errorf("got Authorization %q, want Bearer %s", got, tc.wantKey)
			}
		})
	}
}

func TestFromConfigGigaChat(t *testing.T) {
	srv := llmtest.NewGigaChat(t, gigaKey)
	srv.Reply("привет")
	secrets := &fakeSecrets{value: ptr(gigaKey)}
	c, info, err := FromConfig(context.Background(), config.Config{}, Setup{
		Getenv: env(map[string]string{
			EnvProvider: "gigachat", EnvGigaChatAuthKeySecret: "arn:giga", EnvGigaChatScope: "GIGACHAT_API_CORP",
			EnvGigaChatBaseURL: srv.URL(), EnvGigaChatOAuthURL: srv.OAuthURL(), EnvTimeout: "7.5",
		}),
		Secrets: secrets,
	})
	if err != nil {
		t.Fatal(err)
	}
	if info != (Info{"gigachat", GigaChatModel, srv.URL()}) || c.retry.AttemptTimeout != 7500*time.Millisecond {
		t.Errorf("got info %+v, attempt timeout %v", info, c.retry.AttemptTimeout)
	}
	res, err := c.Complete(context.Background(), hello)
	if err != nil || res.Content != "привет" {
		t.Fatalf("Complete() = %+v, %v; want привет", res, err)
	}
	if tr := srv.TokenRequests(); len(tr) != 1 || tr[0].Scope != "GIGACHAT_API_CORP" {
		t.Errorf("got token requests %+v, want one with scope GIGACHAT_API_CORP", tr)
	}
	if len(secrets.reads) != 1 || secrets.reads[0] != "arn:giga" {
		t.Errorf("got secret reads %v, want [arn:giga]", secrets.reads)
	}
}

func TestFromConfigNotConfigured(t *testing.T) {
	_, info, err := FromConfig(context.Background(), config.Config{OpenAIModel: "m"}, Setup{Getenv: env(nil)})
	if !errors.Is(err, ErrNotConfigured) || info.Model != "m" {
		t.Errorf("FromConfig() = %+v, %v; want ErrNotConfigured with the model known", info, err)
	}
	var nc *NotConfiguredError
	if !errors.As(err, &nc) || !strings.Contains(nc.Advice(), "set OPENAI_BASE_URL and OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN") {
		t.Errorf("FromConfig() error = %v, want a *NotConfiguredError whose advice names the missing settings", err)
	}
}

func TestTrustingHTTPClient(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	plain, err := trustingHTTPClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Get(srv.URL); err == nil {
		t.Fatalf("GET with the system roots succeeded, want an unknown-authority error")
	}
	trusting, err := trustingHTTPClient(ca)
	if err != nil {
		t.Fatal(err)
	}
	res, err := trusting.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET trusting the server's CA: %v", err)
	}
	res.Body.Close()
}
