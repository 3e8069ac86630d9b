package functions_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/stacktest"
)

type apiHealth struct {
	Success bool `json:"success"`
	Data    struct {
		Status   string `json:"status"`
		Services map[string]struct {
			Status    string `json:"status"`
			LatencyMs *int64 `json:"latencyMs"`
		} `json:"services"`
	} `json:"data"`
}

func getJSON(t *testing.T, url string, dst any) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, dst); err != nil {
		t.Fatalf("GET %s: body %q is not JSON: %v", url, body, err)
	}
	return resp
}

func TestHealthRoutesOverHTTP(t *testing.T) {
	stack := stacktest.New(t, stacktest.Options{Env: map[string]string{"OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
		"TAVILY_API_KEY": "", "TAVILY_API_KEY_SECRET_ARN": ""}})

	var h apiHealth
	resp := getJSON(t, stack.URL+"/api/health", &h)
	if resp.StatusCode != 200 || !h.Success || h.Data.Status != "healthy" {
		t.Fatalf("GET /api/health = %d %+v, want 200 success healthy", resp.StatusCode, h)
	}
	for _, table := range []string{"tasksTable", "sessionsTable", "messagesTable", "rateLimitsTable", "accountsTable", "knowledgeTable"} {
		s, ok := h.Data.Services[table]
		if !ok || s.Status != "healthy" || s.LatencyMs == nil {
			t.Errorf("services.%s = %+v, want healthy with latencyMs", table, s)
		}
	}
	if got := h.Data.Services["llm"].Status; got != "not_configured" {
		t.Errorf("services.llm.status = %q, want not_configured without a key", got)
	}
	if got := h.Data.Services["search"].Status; got != "not_configured" {
		t.Errorf("services.search.status = %q, want not_configured without a key", got)
	}

	var p struct{ Status, Model, BaseURL, Timestamp string }
	resp = getJSON(t, stack.URL+"/health", &p)
	if resp.StatusCode != 200 || p.Status != "ok" || p.Model != "test-model" || p.BaseURL != "http://127.0.0.1:1/v1" {
		t.Errorf("GET /health = %d %+v, want 200 ok test-model http://127.0.0.1:1/v1", resp.StatusCode, p)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", p.Timestamp); err != nil {
		t.Errorf("timestamp %q is not an ISO 8601 UTC time: %v", p.Timestamp, err)
	}
}

func TestAPIHealthUnhealthyWithoutDynamoDB(t *testing.T) {
	// A port that was just free: nothing listens there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()

	stack := stacktest.New(t, stacktest.Options{DynamoDBEndpoint: dead, Env: map[string]string{"TAVILY_API_KEY": "tvly-dev-health"}})
	var h apiHealth
	resp := getJSON(t, stack.URL+"/api/health", &h)
	if resp.StatusCode != 503 || h.Data.Status != "unhealthy" {
		t.Fatalf("GET /api/health = %d %q, want 503 unhealthy", resp.StatusCode, h.Data.Status)
	}
	if got := h.Data.Services["tasksTable"].Status; got != "unhealthy" {
		t.Errorf("services.tasksTable.status = %q, want unhealthy", got)
	}
	// Configuration is reported whatever the tables' state.
	if got := h.Data.Services["search"].Status; got != "healthy" {
		t.Errorf("services.search.status = %q, want healthy with TAVILY_API_KEY set", got)
	}
}

func TestUnknownRouteIs404(t *testing.T) {
	stack := stacktest.New(t, stacktest.Options{})
	resp, err := http.Get(stack.URL + "/api/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /api/nope = %d, want 404", resp.StatusCode)
	}
}
