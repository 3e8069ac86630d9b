package suite

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

// Meter counts the LLM calls and tokens that pass through it to the model (the oracle, or a
// reverse proxy to a real one): calls are counted where they happen, not where they are reported.
type Meter struct {
	next http.Handler
	mu   sync.Mutex
	u    Usage
}

// Usage is what a meter counted.
type Usage struct {
	Calls            int
	PromptTokens     int
	CompletionTokens int
}

func (u Usage) minus(v Usage) Usage {
	return Usage{u.Calls - v.Calls, u.PromptTokens - v.PromptTokens, u.CompletionTokens - v.CompletionTokens}
}

// NewMeter counts the calls next answers.
func NewMeter(next http.Handler) *Meter { return &Meter{next: next} }

// Proxy is a reverse proxy to an OpenAI-compatible base URL (e.g. https://api.openai.com/v1):
// a request for /v1/chat/completions goes to <base>/chat/completions.
func Proxy(base string) (http.Handler, error) {
	up, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil {
		return nil, err
	}
	return &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = up.Scheme, up.Host, up.Host
		r.Out.URL.Path = up.Path + strings.TrimPrefix(r.In.URL.Path, "/v1")
		r.Out.URL.RawPath = ""
		// Plain bodies, so the meter can read the usage.
		r.Out.Header.Del("Accept-Encoding")
	}}, nil
}

type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (m *Meter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		m.next.ServeHTTP(w, r)
		return
	}
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	m.next.ServeHTTP(rec, r)
	var out struct {
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(rec.body.Bytes(), &out)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.u.Calls++
	m.u.PromptTokens += out.Usage.PromptTokens
	m.u.CompletionTokens += out.Usage.CompletionTokens
}

// Usage is what the meter counted so far.
func (m *Meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.u
}
