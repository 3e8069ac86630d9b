package searchtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// post sends body to the server's /search with an optional bearer key.
func post(t *testing.T, s *Server, key, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/search", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	return res.StatusCode, out
}

func resultURLs(body map[string]any) []string {
	var out []string
	results, _ := body["results"].([]any)
	for _, r := range results {
		out = append(out, r.(map[string]any)["url"].(string))
	}
	return out
}

func TestServerFiltersLikeTavily(t *testing.T) {
	s := New(t)
	s.Add("Return Policy",
		Result{Title: "a", URL: "https://help.shop.example/returns", Content: "30 days", Score: 0.9},
		Result{Title: "b", URL: "https://shop.example/faq", Content: "x", Score: 0.8},
		Result{Title: "c", URL: "https://blog.other.example/returns", Content: "y", Score: 0.7},
	)
	cases := []struct {
		name string
		body string
		want string
	}{
		{"open web", `{"query":"return  policy"}`, "[https://help.shop.example/returns https://shop.example/faq https://blog.other.example/returns]"},
		{"include_domains covers subdomains", `{"query":"return policy","include_domains":["shop.example"]}`, "[https://help.shop.example/returns https://shop.example/faq]"},
		{"exclude_domains", `{"query":"return policy","exclude_domains":["other.example"]}`, "[https://help.shop.example/returns https://shop.example/faq]"},
		{"max_results", `{"query":"return policy","max_results":1}`, "[https://help.shop.example/returns]"},
		{"unscripted query", `{"query":"something else"}`, "[]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, s, Key, tc.body)
			if got := "[" + strings.Join(resultURLs(body), " ") + "]"; status != 200 || got != tc.want {
				t.Errorf("got %d %s, want 200 %s", status, got, tc.want)
			}
			for _, field := range []string{"query", "results", "response_time", "request_id", "images"} {
				if _, ok := body[field]; !ok {
					t.Errorf("response lacks %q", field)
				}
			}
		})
	}
}

func TestServerRefusesLikeTavily(t *testing.T) {
	s := New(t)
	cases := []struct {
		name, key, body string
		want            int
		wantDetail      string
	}{
		{"no key", "", `{"query":"q"}`, 401, "invalid API key"},
		{"wrong key", "tvly-nope", `{"query":"q"}`, 401, "invalid API key"},
		{"key in the body (older clients)", "", `{"api_key":"` + Key + `","query":"q"}`, 200, ""},
		{"no query", Key, `{}`, 400, "Query is missing"},
		{"query too long", Key, `{"query":"` + strings.Repeat("a", 401) + `"}`, 400, "Query is too long"},
		{"max_results out of range", Key, `{"query":"q","max_results":21}`, 400, "max_results"},
		{"unknown depth", Key, `{"query":"q","search_depth":"deep"}`, 400, "search depth"},
		{"not JSON", Key, `query=q`, 400, "Invalid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, s, tc.key, tc.body)
			detail, _ := body["detail"].(map[string]any)
			msg, _ := detail["error"].(string)
			if status != tc.want || !strings.Contains(msg, tc.wantDetail) {
				t.Errorf("got %d %q, want %d with detail.error containing %q", status, msg, tc.want, tc.wantDetail)
			}
		})
	}
}

func TestServerScriptedFailuresInOrder(t *testing.T) {
	s := New(t)
	s.Pass()
	s.FailRetryAfter(429, 1500*time.Millisecond)
	s.Fail(503)
	var got []int
	var retryAfter string
	for range 4 {
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/search", strings.NewReader(`{"query":"q"}`))
		req.Header.Set("Authorization", "Bearer "+Key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got = append(got, res.StatusCode)
		if res.StatusCode == 429 {
			retryAfter = res.Header.Get("Retry-After")
		}
	}
	if want := []int{200, 429, 503, 200}; !slices.Equal(got, want) || retryAfter != "2" {
		t.Errorf("statuses = %v with Retry-After %q, want %v with 2 (seconds, rounded up)", got, retryAfter, want)
	}
	if s.Calls() != 4 {
		t.Errorf("Calls() = %d, want 4", s.Calls())
	}
}

func TestLoadScriptAndGenerate(t *testing.T) {
	s := New(t)
	if err := s.LoadScript(bytes.NewBufferString(`[{"query":"capital of france","results":[{"title":"Paris","url":"https://en.wikipedia.org/wiki/Paris","content":"Paris is the capital.","score":0.99}]}]`)); err != nil {
		t.Fatal(err)
	}
	if _, body := post(t, s, Key, `{"query":"Capital of France"}`); len(resultURLs(body)) != 1 {
		t.Errorf("scripted query: got %v, want the scripted result", resultURLs(body))
	}
	if err := s.LoadScript(bytes.NewBufferString(`[{"results":[]}]`)); err == nil {
		t.Error("LoadScript() of an entry without query: error = nil, want one")
	}
	s.GenerateUnscripted()
	_, body := post(t, s, Key, `{"query":"opening hours","include_domains":["shop.example"]}`)
	urls := resultURLs(body)
	if len(urls) != 3 || !strings.HasPrefix(urls[0], "https://shop.example/") {
		t.Errorf("generated results %v, want 3 on shop.example", urls)
	}
}
