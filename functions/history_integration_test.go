package functions_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

type sessionData struct {
	SessionID       string            `json:"sessionId"`
	TaskID          string            `json:"taskId"`
	URL             string            `json:"url"`
	Status          string            `json:"status"`
	LifecycleStatus string            `json:"lifecycleStatus"`
	CreatedAt       string            `json:"createdAt"`
	UpdatedAt       string            `json:"updatedAt"`
	MessageCount    int               `json:"messageCount"`
	Metadata        map[string]string `json:"metadata"`
}

type sessionListData struct {
	Sessions   []sessionData `json:"sessions"`
	Pagination struct {
		Total   int  `json:"total"`
		Limit   int  `json:"limit"`
		Offset  int  `json:"offset"`
		HasMore bool `json:"hasMore"`
	} `json:"pagination"`
}

type messageData struct {
	MessageID      string         `json:"messageId"`
	Role           string         `json:"role"`
	Content        string         `json:"content"`
	ActionString   string         `json:"actionString"`
	Status         string         `json:"status"`
	Error          map[string]any `json:"error"`
	SequenceNumber int            `json:"sequenceNumber"`
	Timestamp      string         `json:"timestamp"`
	DOMSummary     string         `json:"domSummary"`
}

type messageListData struct {
	SessionID string        `json:"sessionId"`
	Messages  []messageData `json:"messages"`
	Total     int           `json:"total"`
	HasMore   bool          `json:"hasMore"`
}

// getData GETs a route and decodes its data, failing the test unless it answers 200.
func getData(t *testing.T, rawURL, token string, dst any) {
	t.Helper()
	status, _, body := call(t, "GET", rawURL, token, nil)
	e := decode(t, body)
	if status != 200 || !e.Success {
		t.Fatalf("GET %s = %d %s, want 200", rawURL, status, body)
	}
	if err := json.Unmarshal(e.Data, dst); err != nil {
		t.Fatal(err)
	}
}

func sessionIDs(l sessionListData) []string {
	out := make([]string, len(l.Sessions))
	for i, s := range l.Sessions {
		out[i] = s.SessionID
	}
	return out
}

// pageTail ends bigShopPage, far past what a page summary keeps: a body holding it holds the page.
const pageTail = "end-of-the-stored-page"

// A page over SnapshotMinRunes characters, so that its messages reference a stored snapshot.
var bigShopPage = `<div><h1>Shop</h1><input id="1" type="text" placeholder="Search"/><button id="2">Search</button><p>` +
	strings.Repeat("Warm wool socks for every season. ", 40) + pageTail + `</p></div>`

// TestHistoryOverHTTP is the "done when", tried as a new user would: after a few interact
// steps the session shows up in the list, as the latest and with its messages; archiving hides it
// unless includeArchived=true; the export of its task downloads with every step and its debug entries.
func TestHistoryOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	fake.SetDefault("<Thought>Searching.</Thought><Action>click(2)</Action>")
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, map[string]string{"RATE_LIMIT_INTERACT": "100"})})
	createUser(t, stack, "ada@example.com", "a long enough passphrase")
	ada := login(t, stack.URL, "ada@example.com", "a long enough passphrase")

	// Two older sessions of one step each, then the session under test with three steps.
	var older []string
	for _, q := range []string{"first errand", "second errand"} {
		_, d, e := interact(t, stack.URL, ada, map[string]any{"url": "https://shop.example/", "query": q, "dom": shopPage})
		if d.SessionID == "" {
			t.Fatalf("interact = %+v, want a session", e)
		}
		older = append(older, d.SessionID)
	}
	fake.ReplyWithUsage(`<Thought>I'll type the search.</Thought><Action>setValue(1, "wool socks")</Action>`, 100, 10)
	fake.ReplyWithUsage("<Thought>Now search.</Thought><Action>click(2)</Action>", 200, 20)
	fake.ReplyWithUsage("<Thought>Try the button again.</Thought><Action>click(2)</Action>", 300, 30)
	_, s1, _ := interact(t, stack.URL, ada, map[string]any{"url": "https://shop.example/", "query": "find wool socks", "dom": bigShopPage})
	next := map[string]any{"url": "https://shop.example/", "query": "find wool socks", "dom": bigShopPage, "taskId": s1.TaskID, "lastActionStatus": "success"}
	interact(t, stack.URL, ada, next)
	next["lastActionStatus"], next["lastActionError"] = "failure", map[string]any{"message": "element is hidden", "code": "NOT_VISIBLE"}
	if status, s3, e := interact(t, stack.URL, ada, next); status != 200 || s3.CurrentStep != 3 || s3.SessionID != s1.SessionID {
		t.Fatalf("third step = %d %+v %+v, want step 3 of the same session", status, s3, e)
	}
	sessionID, taskID := s1.SessionID, s1.TaskID
	sessionsURL := stack.URL + "/api/session"
	messagesURL := stack.URL + "/api/session/" + sessionID + "/messages"

	// The list: active sessions, most recently updated first, with counts and the first query.
	var list sessionListData
	getData(t, sessionsURL, ada, &list)
	if got, want := sessionIDs(list), []string{sessionID, older[1], older[0]}; !slices.Equal(got, want) || list.Pagination.Total != 3 || list.Pagination.HasMore {
		t.Errorf("list = %v (%+v), want %v, total 3", got, list.Pagination, want)
	}
	if s := list.Sessions[0]; s.Status != "active" || s.MessageCount != 6 || s.URL != "https://shop.example/" || s.TaskID != taskID ||
		s.Metadata["initialQuery"] != "find wool socks" || !strings.HasSuffix(s.CreatedAt, "Z") || s.UpdatedAt < s.CreatedAt {
		t.Errorf("listed session = %+v, want active with 6 messages, its url, task and initial query", s)
	}
	// Pagination.
	getData(t, sessionsURL+"?limit=2", ada, &list)
	if got := sessionIDs(list); !slices.Equal(got, []string{sessionID, older[1]}) || list.Pagination.Total != 3 || !list.Pagination.HasMore || list.Pagination.Limit != 2 {
		t.Errorf("first page = %v %+v, want 2 of 3 with more", got, list.Pagination)
	}
	getData(t, sessionsURL+"?limit=2&offset=2", ada, &list)
	if got := sessionIDs(list); !slices.Equal(got, []string{older[0]}) || list.Pagination.HasMore || list.Pagination.Offset != 2 {
		t.Errorf("second page = %v %+v, want the oldest session and no more", got, list.Pagination)
	}

	// The latest session.
	var latest sessionData
	getData(t, sessionsURL+"/latest", ada, &latest)
	if latest.SessionID != sessionID || latest.MessageCount != 6 || latest.Status != "active" {
		t.Errorf("latest = %+v, want the three-step session", latest)
	}
	if status, _, body := call(t, "GET", sessionsURL+"/latest?status=completed", ada, nil); status != 404 || decode(t, body).Code != "SESSION_NOT_FOUND" {
		t.Errorf("latest completed = %d %s, want 404 SESSION_NOT_FOUND", status, body)
	}

	// The messages, oldest first, with page summaries and never a page.
	status, _, raw := call(t, "GET", messagesURL, ada, nil)
	var msgs messageListData
	if err := json.Unmarshal(decode(t, raw).Data, &msgs); err != nil || status != 200 {
		t.Fatalf("messages = %d %s", status, raw)
	}
	var roles []string
	for i, m := range msgs.Messages {
		roles = append(roles, m.Role)
		if m.SequenceNumber != i+1 {
			t.Errorf("message %d has sequence number %d", i, m.SequenceNumber)
		}
	}
	if want := []string{"user", "assistant", "system", "assistant", "system", "assistant"}; !slices.Equal(roles, want) || msgs.Total != 6 || msgs.HasMore {
		t.Errorf("messages = %v (total %d), want roles %v, total 6", roles, msgs.Total, want)
	}
	if m := msgs.Messages[1]; m.ActionString != `setValue(1, "wool socks")` || m.Status != "pending" || !strings.HasPrefix(m.DOMSummary, "Shop") {
		t.Errorf("first assistant message = %+v, want its action and the page's summary", m)
	}
	if m := msgs.Messages[4]; m.Status != "failure" || m.Error["message"] != "element is hidden" || m.Error["code"] != "NOT_VISIBLE" {
		t.Errorf("failure report = %+v, want the extension's error", m)
	}
	for _, leak := range []string{"snapshotId", pageTail, `"dom"`} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("messages carry %q: %s", leak, raw)
		}
	}
	getData(t, messagesURL+"?limit=2", ada, &msgs)
	if len(msgs.Messages) != 2 || !msgs.HasMore || msgs.Total != 6 {
		t.Errorf("limit=2 = %d messages, hasMore %v, total %d; want 2, true, 6", len(msgs.Messages), msgs.HasMore, msgs.Total)
	}
	// since: the last timestamp of the first step gives the two later steps.
	getData(t, messagesURL+"?since="+url.QueryEscape(msgs.Messages[1].Timestamp), ada, &msgs)
	if len(msgs.Messages) != 4 || msgs.Messages[0].SequenceNumber != 3 {
		t.Errorf("since the first step = %+v, want messages 3 to 6", msgs.Messages)
	}

	// Debug logs: the user's entries, newest first.
	var logs struct {
		Logs []struct {
			TaskID  string         `json:"taskId"`
			LogType string         `json:"logType"`
			Data    map[string]any `json:"data"`
		} `json:"logs"`
		Count int `json:"count"`
	}
	getData(t, stack.URL+"/api/debug/logs", ada, &logs)
	if logs.Count != 5 || logs.Logs[0].TaskID != taskID || logs.Logs[0].Data["promptTokensReported"] != 300.0 {
		t.Errorf("debug logs = %+v, want 5 entries, the last step's first", logs)
	}
	getData(t, stack.URL+"/api/debug/logs?limit=2&logType=step&taskId="+taskID, ada, &logs)
	if logs.Count != 2 || logs.Logs[1].Data["promptTokensReported"] != 200.0 {
		t.Errorf("debug logs of the task, 2 = %+v, want steps 3 and 2", logs)
	}

	// The export downloads every step.
	status, hdr, raw := call(t, "GET", stack.URL+"/api/debug/session/"+taskID+"/export", ada, nil)
	var export struct {
		Task struct {
			TaskID    string `json:"taskId"`
			StepCount int    `json:"stepCount"`
		} `json:"task"`
		Steps []struct {
			Action string `json:"action"`
		} `json:"steps"`
		Messages []struct {
			SnapshotID string `json:"snapshotId"`
		} `json:"messages"`
		Snapshots []struct {
			SnapshotID      string `json:"snapshotId"`
			SequenceNumbers []int  `json:"sequenceNumbers"`
		} `json:"snapshots"`
		DebugEntries []struct {
			LogType string `json:"logType"`
		} `json:"debugEntries"`
		Metrics map[string]int `json:"metrics"`
	}
	if err := json.Unmarshal(decode(t, raw).Data, &export); err != nil || status != 200 {
		t.Fatalf("export = %d %s", status, raw)
	}
	if got, want := hdr.Get("Content-Disposition"), `attachment; filename="task-`+taskID+`.json"`; got != want {
		t.Errorf("Content-Disposition = %q, want %q", got, want)
	}
	var actions []string
	for _, s := range export.Steps {
		actions = append(actions, s.Action)
	}
	if want := []string{`setValue(1, "wool socks")`, "click(2)", "click(2)"}; !slices.Equal(actions, want) || export.Task.StepCount != 3 {
		t.Errorf("exported steps = %v, want %v", actions, want)
	}
	if len(export.Messages) != 6 || len(export.DebugEntries) != 3 || len(export.Snapshots) != 1 || len(export.Snapshots[0].SequenceNumbers) != 3 {
		t.Errorf("export has %d messages, %d debug entries, snapshots %+v; want 6, 3 and one page referenced 3 times",
			len(export.Messages), len(export.DebugEntries), export.Snapshots)
	}
	if m := export.Metrics; m["stepCount"] != 3 || m["promptTokens"] != 600 || m["completionTokens"] != 60 || m["failedActions"] != 1 || m["messageCount"] != 6 {
		t.Errorf("metrics = %v, want 3 steps, 600+60 tokens, 1 failed action, 6 messages", m)
	}
	if strings.Contains(string(raw), pageTail) {
		t.Error("the export contains the page")
	}

	// Archiving hides the session unless includeArchived=true.
	status, _, raw = call(t, "POST", sessionsURL, ada, map[string]string{"sessionId": sessionID})
	if want := `{"success":true,"data":{"sessionId":"` + sessionID + `","status":"archived","message":"Session archived successfully"}}`; status != 200 || string(raw) != want {
		t.Errorf("archive = %d %s, want 200 %s", status, raw, want)
	}
	if status, _, raw = call(t, "POST", sessionsURL, ada, map[string]string{"sessionId": strings.ToUpper(sessionID)}); status != 200 {
		t.Errorf("archive again = %d %s, want 200", status, raw)
	}
	getData(t, sessionsURL, ada, &list)
	if got, want := sessionIDs(list), []string{older[1], older[0]}; !slices.Equal(got, want) || list.Pagination.Total != 2 {
		t.Errorf("list after archiving = %v, want %v", got, want)
	}
	getData(t, sessionsURL+"?includeArchived=true", ada, &list)
	if got := sessionIDs(list); !slices.Equal(got, []string{sessionID, older[1], older[0]}) || list.Sessions[0].Status != "archived" || list.Sessions[0].LifecycleStatus != "active" {
		t.Errorf("list with archived = %v %+v, want the archived session first", got, list.Sessions)
	}
	getData(t, sessionsURL+"?status=archived", ada, &list)
	if got := sessionIDs(list); !slices.Equal(got, []string{sessionID}) {
		t.Errorf("archived sessions = %v, want only %s", got, sessionID)
	}
	getData(t, sessionsURL+"/latest", ada, &latest)
	if latest.SessionID != older[1] {
		t.Errorf("latest after archiving = %s, want %s", latest.SessionID, older[1])
	}
	if status, _, raw := call(t, "GET", messagesURL, ada, nil); status != 404 || decode(t, raw).Code != "SESSION_NOT_FOUND" {
		t.Errorf("messages of an archived session = %d %s, want 404 SESSION_NOT_FOUND", status, raw)
	}
	if status, _, _ := call(t, "GET", stack.URL+"/api/debug/session/"+taskID+"/export", ada, nil); status != 200 {
		t.Errorf("export of an archived session's task = %d, want 200", status)
	}
}

// In an organization the session routes are the user's own: another member cannot archive a
// session (403) nor see its messages, its task's export or its debug entries (404). Every route
// needs a token, validates its parameters and carries the rate-limit headers of its class.
func TestHistoryAccessOverHTTP(t *testing.T) {
	fake := llmtest.New(t)
	fake.SetDefault("<Thought>Searching.</Thought><Action>click(2)</Action>")
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, map[string]string{"RATE_LIMIT_DEBUG": "50"})})
	ctx := context.Background()
	accts := accountsdb.New(stack.DB.Client, stack.DB.Tables["AccountsTable"])
	org, err := accts.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	orgLogin := func(email string) string {
		u := createUser(t, stack, email, "a long enough passphrase")
		if err := accts.AddMember(ctx, org.ID, u.ID, "member"); err != nil {
			t.Fatal(err)
		}
		status, _, body := call(t, "POST", stack.URL+"/api/v1/auth/login", "", map[string]string{"email": email, "password": "a long enough passphrase", "tenantId": org.ID})
		var data struct {
			AccessToken string `json:"accessToken"`
			TenantID    string `json:"tenantId"`
		}
		if err := json.Unmarshal(decode(t, body).Data, &data); err != nil || status != 200 || data.TenantID != org.ID {
			t.Fatalf("login to the organization = %d %s", status, body)
		}
		return data.AccessToken
	}
	ada, bob := orgLogin("ada@example.com"), orgLogin("bob@example.com")
	_, d, e := interact(t, stack.URL, ada, map[string]any{"url": "https://shop.example/", "query": "find socks", "dom": shopPage})
	if d.SessionID == "" {
		t.Fatalf("interact = %+v", e)
	}

	status, _, body := call(t, "POST", stack.URL+"/api/session", bob, map[string]string{"sessionId": d.SessionID})
	if e := decode(t, body); status != 403 || e.Code != "FORBIDDEN" {
		t.Errorf("another member archives = %d %s, want 403 FORBIDDEN", status, body)
	}
	notFound := []struct{ path, code string }{
		{"/api/session/" + d.SessionID + "/messages", "SESSION_NOT_FOUND"},
		{"/api/debug/session/" + d.TaskID + "/export", "TASK_NOT_FOUND"},
		{"/api/debug/logs?taskId=" + d.TaskID, "TASK_NOT_FOUND"},
	}
	for _, nf := range notFound {
		if status, _, body := call(t, "GET", stack.URL+nf.path, bob, nil); status != 404 || decode(t, body).Code != nf.code {
			t.Errorf("another member GET %s = %d %s, want 404 %s", nf.path, status, body, nf.code)
		}
	}
	var list sessionListData
	getData(t, stack.URL+"/api/session?includeArchived=true", bob, &list)
	var logs struct {
		Count int `json:"count"`
	}
	getData(t, stack.URL+"/api/debug/logs", bob, &logs)
	if len(list.Sessions) != 0 || logs.Count != 0 {
		t.Errorf("another member sees %d sessions and %d debug entries, want none", len(list.Sessions), logs.Count)
	}
	getData(t, stack.URL+"/api/session", ada, &list)
	if got := sessionIDs(list); !slices.Equal(got, []string{d.SessionID}) || list.Sessions[0].Status != "active" {
		t.Errorf("the owner's sessions = %v, want the session, still active", list.Sessions)
	}

	routes := []struct {
		method, path, class string
		body                any
		badPath, field      string
	}{
		{"GET", "/api/session", "100", nil, "/api/session?includeArchived=maybe", "includeArchived"},
		{"POST", "/api/session", "100", map[string]string{"sessionId": d.SessionID}, "", ""},
		{"GET", "/api/session/latest", "100", nil, "/api/session/latest?status=archived", "status"},
		{"GET", "/api/session/" + d.SessionID + "/messages", "100", nil, "/api/session/not-a-uuid/messages", "sessionId"},
		{"GET", "/api/debug/logs", "50", nil, "/api/debug/logs?since=yesterday", "since"},
		{"GET", "/api/debug/session/" + d.TaskID + "/export", "50", nil, "/api/debug/session/not-a-uuid/export", "taskId"},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			if status, _, body := call(t, rt.method, stack.URL+rt.path, "", rt.body); status != 401 || decode(t, body).Code != "UNAUTHORIZED" {
				t.Errorf("without a token = %d %s, want 401 UNAUTHORIZED", status, body)
			}
			if rt.badPath != "" {
				status, _, body := call(t, "GET", stack.URL+rt.badPath, ada, nil)
				if e := decode(t, body); status != 400 || e.Code != "VALIDATION_ERROR" || e.Details["field"] != rt.field {
					t.Errorf("GET %s = %d %s, want 400 VALIDATION_ERROR on %s", rt.badPath, status, body, rt.field)
				}
			}
			token := ada
			if rt.method == "POST" {
				token = bob // refused (403), so the session stays as it is
			}
			if _, hdr, _ := call(t, rt.method, stack.URL+rt.path, token, rt.body); hdr.Get("X-RateLimit-Limit") != rt.class {
				t.Errorf("X-RateLimit-Limit = %q, want %s", hdr.Get("X-RateLimit-Limit"), rt.class)
			}
		})
	}
	status, _, body = call(t, "POST", stack.URL+"/api/session", ada, map[string]string{"sessionId": "42"})
	if e := decode(t, body); status != 400 || e.Details["field"] != "sessionId" {
		t.Errorf("archive of a malformed id = %d %s, want 400 on sessionId", status, body)
	}
}
