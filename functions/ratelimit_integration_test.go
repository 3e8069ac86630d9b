package functions_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/screenagent/backend/infra/stacktest"
)

// login returns a fresh access token for the user.
func login(t *testing.T, baseURL, email, password string) string {
	t.Helper()
	status, _, body := call(t, "POST", baseURL+"/api/v1/auth/login", "", map[string]string{"email": email, "password": password})
	if status != 200 {
		t.Fatalf("login = %d %s", status, body)
	}
	var data struct {
		AccessToken string `json:"accessToken"`
	}
	if err := json.Unmarshal(decode(t, body).Data, &data); err != nil {
		t.Fatal(err)
	}
	return data.AccessToken
}

// A fresh tenant firing 14 concurrent requests at a limit of 10 sees exactly 10 pass, across
// however many function processes the emulator starts.
func TestRateLimitAcrossProcesses(t *testing.T) {
	stack := stacktest.New(t, stacktest.Options{Env: map[string]string{"RATE_LIMIT_AUTH_SESSION": "10"}})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	token := login(t, stack.URL, "ada@example.com", "a long enough passphrase")

	type result struct {
		status    int
		header    http.Header
		remaining string
	}
	results := make([]result, 14)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, hdr, _ := call(t, "GET", stack.URL+"/api/v1/auth/session", token, nil)
			results[i] = result{status, hdr, hdr.Get("X-RateLimit-Remaining")}
		}()
	}
	wg.Wait()
	var ok, limited int
	for _, r := range results {
		if r.header.Get("X-RateLimit-Limit") != "10" || r.header.Get("X-RateLimit-Reset") == "" {
			t.Errorf("headers = %v, want X-RateLimit-Limit 10 and a reset time", r.header)
		}
		switch r.status {
		case 200:
			ok++
		case 429:
			limited++
			retry, err := strconv.Atoi(r.header.Get("Retry-After"))
			if err != nil || retry < 1 || retry > 60 || r.remaining != "0" {
				t.Errorf("429 with Retry-After %q, remaining %q; want 1..60 and 0", r.header.Get("Retry-After"), r.remaining)
			}
		default:
			t.Errorf("status %d, want 200 or 429", r.status)
		}
	}
	if ok != 10 || limited != 4 {
		t.Errorf("%d passed and %d were refused, want 10 and 4", ok, limited)
	}
}
