package functions_test

import (
	"cmp"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/sam"
)

// isolationCall is a request another user sends with the owner's ids: {task}, {session} and
// {run} in the path and body stand for the owner's task, chat session and run. Both another
// tenant and another member of the owner's organization get 404 (code, when set, is the exact
// error code), except that a member gets memberStatus when it is set.
type isolationCall struct {
	path         string
	body         string
	code         string
	memberStatus int
}

// isolationCases are the template's routes that take a task, session or run id (in the path,
// query or body), each with the requests that name the owner's. Every route of template.yaml is
// here or in isolationExempt: a new route is one line in one of them.
var isolationCases = map[string][]isolationCall{
	"POST /api/agent/interact": {
		{path: "/api/agent/interact", body: `{"url":"https://shop.example/","query":"q","dom":"<button id=\"1\">Go</button>","taskId":"{task}","lastActionStatus":"success"}`, code: "TASK_NOT_FOUND"},
		{path: "/api/agent/interact", body: `{"url":"https://shop.example/","query":"q","dom":"<button id=\"1\">Go</button>","sessionId":"{session}"}`},
	},
	// Archiving another member's session is refused as forbidden (README), not hidden.
	"POST /api/session":                      {{path: "/api/session", body: `{"sessionId":"{session}"}`, memberStatus: 403}},
	"GET /api/session/{sessionId}/messages":  {{path: "/api/session/{session}/messages"}},
	"GET /api/debug/logs":                    {{path: "/api/debug/logs?taskId={task}"}},
	"GET /api/debug/session/{taskId}/export": {{path: "/api/debug/session/{task}/export"}},
	"POST /agent/run/{runId}/step":           {{path: "/agent/run/{run}/step", body: `{}`}},
	"POST /agent/run/{runId}/answer":         {{path: "/agent/run/{run}/answer", body: `{"approved":true,"answer":"yes"}`}},
	"POST /agent/run/{runId}/cancel":         {{path: "/agent/run/{run}/cancel"}},
	"GET /agent/run/{runId}":                 {{path: "/agent/run/{run}"}},
}

// isolationExempt are the routes that take no task, session or run id, with why.
var isolationExempt = map[string]string{
	"GET /api/health":                     "no tenant data",
	"GET /health":                         "no tenant data",
	"POST /api/v1/auth/login":             "no ids; the tenant is chosen among the user's own memberships",
	"GET /api/v1/auth/session":            "no ids; answers about the token's own user",
	"POST /api/v1/auth/logout":            "no ids; revokes the token itself",
	"GET /api/v1/user/preferences":        "no ids; the token's user and tenant",
	"POST /api/v1/user/preferences":       "no ids; the token's user and tenant",
	"GET /api/knowledge/resolve":          "no ids; the token's tenant's knowledge",
	"GET /internal/api/knowledge/resolve": "no ids; IAM callers name the tenant (X-Tenant-ID)",
	"GET /api/session":                    "no ids; lists the token's user's sessions",
	"GET /api/session/latest":             "no ids; the token's user's latest session",
	"POST /agent/run/start":               "no ids; creates a run of the token's user",
	"POST /api/realtime/ticket":           "no ids; a ticket for the token's user (subscriptions are checked in realtime_integration_test.go)",
}

// TestTenantIsolationOfEveryRoute: for every route of template.yaml that takes a task, session or
// run id, another tenant and another member of the owner's organization naming the owner's get
// 404, and none of the tables holding tasks, runs, sessions and messages changes.
func TestTenantIsolationOfEveryRoute(t *testing.T) {
	tmpl, err := sam.Load(filepath.Join("..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]bool{}
	for _, r := range tmpl.Routes() {
		key := r.Method + " " + r.Path
		routes[key] = true
		_, tested := isolationCases[key]
		if _, exempt := isolationExempt[key]; tested == exempt {
			t.Errorf("route %s: want exactly one entry, in isolationCases (it takes a task, session or run id) or isolationExempt", key)
		}
	}
	for key := range isolationCases {
		if !routes[key] {
			t.Errorf("isolationCases has %s, which is not a route of template.yaml", key)
		}
	}
	for key := range isolationExempt {
		if !routes[key] {
			t.Errorf("isolationExempt has %s, which is not a route of template.yaml", key)
		}
	}

	fake := llmtest.New(t)
	fake.SetDefault("<Thought>Going on.</Thought><Action>click(1)</Action>")
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil)})
	accts := accountsdb.New(stack.DB.Client, stack.DB.Tables["AccountsTable"])
	org, err := accts.CreateOrganization(context.Background(), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"owner@example.com", "member@example.com"} {
		u := createUser(t, stack, email, "a long enough passphrase")
		if err := accts.AddMember(context.Background(), org.ID, u.ID, "member"); err != nil {
			t.Fatal(err)
		}
	}
	createUser(t, stack, "other@example.com", "a long enough passphrase")
	// Both members log into the organization, their oldest membership: one tenant, two users.
	owner := login(t, stack.URL, "owner@example.com", "a long enough passphrase")
	member := login(t, stack.URL, "member@example.com", "a long enough passphrase")
	other := login(t, stack.URL, "other@example.com", "a long enough passphrase")

	_, d, e := interact(t, stack.URL, owner, map[string]any{"url": "https://shop.example/", "query": "find socks", "dom": shopPage})
	status, _, body := call(t, "POST", stack.URL+"/agent/run/start", owner, map[string]string{"task": "find socks", "mode": "autonomous"})
	var run struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal(body, &run); err != nil || status != 200 || d.TaskID == "" || run.RunID == "" {
		t.Fatalf("owner's data: interact %+v %+v, run start %d %s", d, e, status, body)
	}
	ids := strings.NewReplacer("{task}", d.TaskID, "{session}", d.SessionID, "{run}", run.RunID)
	// The ids are real: the owner reads them.
	for _, path := range []string{"/api/debug/session/{task}/export", "/api/session/{session}/messages", "/agent/run/{run}"} {
		if status, _, body := call(t, "GET", stack.URL+ids.Replace(path), owner, nil); status != 200 {
			t.Fatalf("owner GET %s = %d %s, want 200", path, status, body)
		}
	}

	before := tenantData(t, stack)
	keys := make([]string, 0, len(isolationCases))
	for key := range isolationCases {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if !routes[key] {
			continue
		}
		method, route, _ := strings.Cut(key, " ")
		for _, c := range isolationCases[key] {
			for _, who := range []struct {
				name, token string
				status      int
			}{{"another tenant", other, 404}, {"another member of the organization", member, cmp.Or(c.memberStatus, 404)}} {
				t.Run(key+"/"+who.name, func(t *testing.T) {
					var reqBody any
					if c.body != "" {
						reqBody = json.RawMessage(ids.Replace(c.body))
					}
					status, _, body := call(t, method, stack.URL+ids.Replace(c.path), who.token, reqBody)
					if status != who.status || who.status == 404 && !notFoundBody(body, strings.HasPrefix(route, "/api/"), c.code) {
						t.Errorf("got %d %s, want %d in the route's error body %s", status, body, who.status, c.code)
					}
					if after := tenantData(t, stack); !slices.Equal(after, before) {
						t.Errorf("the request changed the stored data:\nbefore %v\nafter  %v", before, after)
					}
				})
			}
		}
	}
}

// notFoundBody reports whether body is a not-found error: the envelope
// {"success":false,"code":"…NOT_FOUND"} of the main API (code exactly, when given), or the run
// API's {"error":"NOT_FOUND","message":…}.
func notFoundBody(body []byte, envelope bool, code string) bool {
	var b struct {
		Success *bool  `json:"success"`
		Code    string `json:"code"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &b) != nil || b.Message == "" {
		return false
	}
	if envelope {
		return b.Success != nil && !*b.Success && strings.HasSuffix(b.Code, "NOT_FOUND") && (code == "" || b.Code == code)
	}
	return b.Error == "NOT_FOUND" && b.Success == nil
}

// tenantData is every item of the tables that hold tasks, runs, debug entries, sessions and
// messages, as sorted JSON lines.
func tenantData(t *testing.T, stack *stacktest.Stack) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"TasksTable", "SessionsTable", "MessagesTable"} {
		p := dynamodb.NewScanPaginator(stack.DB.Client, &dynamodb.ScanInput{TableName: aws.String(stack.DB.Tables[table]), ConsistentRead: aws.Bool(true)})
		for p.HasMorePages() {
			page, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range page.Items {
				var m map[string]any
				if err := attributevalue.UnmarshalMap(item, &m); err != nil {
					t.Fatal(err)
				}
				line, _ := json.Marshal(m)
				out = append(out, table+" "+string(line))
			}
		}
	}
	slices.Sort(out)
	return out
}
