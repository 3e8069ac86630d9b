package provider

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/llm"
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
			c, info, err := FromConfig(context.Background(), cfg, Setup{Secrets: tc.secret})
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
			if info != (llm.Info{Provider: "openai", Model: "gpt-test", BaseURL: srv.URL()}) {
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
	cfg, err := config.Parse(env(map[string]string{
		config.EnvLLMProvider: "gigachat", config.EnvGigaChatAuthKeySecret: "arn:giga", config.EnvGigaChatScope: "GIGACHAT_API_CORP",
		config.EnvGigaChatBaseURL: srv.URL(), config.EnvGigaChatOAuthURL: srv.OAuthURL(), config.EnvLLMTimeout: "7.5",
	}))
	if err != nil {
		t.Fatal(err)
	}
	c, info, err := FromConfig(context.Background(), cfg, Setup{Secrets: secrets})
	if err != nil {
		t.Fatal(err)
	}
	if info != (llm.Info{Provider: "gigachat", Model: llm.GigaChatModel, BaseURL: srv.URL()}) || c.retry.AttemptTimeout != 7500*time.Millisecond {
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
	_, info, err := FromConfig(context.Background(), config.Config{OpenAIModel: "m"}, Setup{})
	if !errors.Is(err, llm.ErrNotConfigured) || info.Model != "m" {
		t.Errorf("FromConfig() = %+v, %v; want llm.ErrNotConfigured with the model known", info, err)
	}
	var nc *llm.NotConfiguredError
	if !errors.As(err, &nc) || !strings.Contains(nc.Advice(), "set OPENAI_BASE_URL and OPENAI_API_KEY or OPENAI_API_KEY_SECRET_ARN") {
		t.Errorf("FromConfig() error = %v, want a *llm.NotConfiguredError whose advice names the missing settings", err)
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
