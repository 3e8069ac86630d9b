package functions_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/coder/websocket"

	"github.com/screenagent/backend/infra/stacktest"
	"github.com/screenagent/backend/infra/waitbuf"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/realtime/realtimedb"
)

// wsWait bounds each wait for a message. A healthy stack answers in well under a
// second, but a function's first use builds it, which takes long on a loaded machine.
const wsWait = 2 * time.Minute

type ticketData struct {
	Ticket    string `json:"ticket"`
	ExpiresAt string `json:"expiresAt"`
	URL       string `json:"url"`
}

func realtimeTicket(t *testing.T, stack *stacktest.Stack, token string) ticketData {
	t.Helper()
	status, _, body := call(t, "POST", stack.URL+"/api/realtime/ticket", token, nil)
	var d ticketData
	if status != 200 || json.Unmarshal(decode(t, body).Data, &d) != nil || d.Ticket == "" {
		t.Fatalf("ticket = %d %s, want 200 with a ticket", status, body)
	}
	return d
}

// wsClient is a real WebSocket client of the stack's WebSocket API.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

func connectWS(t *testing.T, stack *stacktest.Stack, token string) *wsClient {
	t.Helper()
	tk := realtimeTicket(t, stack, token)
	conn, resp, err := websocket.Dial(context.Background(), tk.URL+"/?ticket="+tk.Ticket, nil)
	if err != nil {
		t.Fatalf("connect with a fresh ticket: %v (%v)", err, resp)
	}
	conn.SetReadLimit(realtime.MaxMessage + 1)
	c := &wsClient{t: t, conn: conn}
	t.Cleanup(func() { conn.CloseNow() })
	return c
}

func (c *wsClient) send(v any) {
	c.t.Helper()
	data, _ := json.Marshal(v)
	if err := c.conn.Write(context.Background(), websocket.MessageText, data); err != nil {
		c.t.Fatalf("send %s: %v", data, err)
	}
}

// next waits for the next message.
func (c *wsClient) next() map[string]any {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wsWait)
	defer cancel()
	_, data, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		c.t.Fatalf("message %s is not a JSON object", data)
	}
	if !strings.HasPrefix(string(data), `{"type":`) {
		c.t.Errorf("message %s does not start with its type", data)
	}
	return m
}

// marker sends a message no route serves and returns what arrived before its error answer: a
// connection's messages arrive in order, so this is everything sent to it until then.
func (c *wsClient) marker() []map[string]any {
	c.t.Helper()
	c.send(map[string]string{"action": "marker"})
	var before []map[string]any
	for {
		m := c.next()
		if m["type"] == "error" && m["code"] == realtime.CodeUnknownAction {
			return before
		}
		before = append(before, m)
	}
}

func subscribeTo(c *wsClient, field, id string, since *int64) map[string]any {
	c.t.Helper()
	req := map[string]any{"action": "subscribe", field: id}
	if since != nil {
		req["since"] = *since
	}
	c.send(req)
	return c.next()
}

func ofType(ms []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range ms {
		if m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

// realtimeItems returns the realtime table's items whose PK starts with prefix.
func realtimeItems(t *testing.T, stack *stacktest.Stack, prefix string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := stack.DB.Client.Scan(context.Background(), &dynamodb.ScanInput{
		TableName:                 aws.String(stack.DB.Tables["RealtimeTable"]),
		FilterExpression:          aws.String("begins_with(PK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: prefix}},
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// TestRealtimeOverWebSocket drives the WebSocket API with a real client through the emulator:
// tickets, subscribing, events of interact and run steps, isolation, cleanup and resumption.
func TestRealtimeOverWebSocket(t *testing.T) {
	fake := llmtest.New(t)
	// The functions' log lines: each $disconnect says when it is done.
	funcLogs := &waitbuf.Buffer{}
	stack := stacktest.New(t, stacktest.Options{Env: llmEnv(fake, nil), Output: funcLogs})
	ctx := context.Background()
	accts := accountsdb.New(stack.DB.Client, stack.DB.Tables["AccountsTable"])
	org, err := accts.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"owner@example.com", "member@example.com"} {
		u := createUser(t, stack, email, "a long enough passphrase")
		if err := accts.AddMember(ctx, org.ID, u.ID, "member"); err != nil {
			t.Fatal(err)
		}
	}
	createUser(t, stack, "other@example.com", "a long enough passphrase")
	owner := login(t, stack.URL, "owner@example.com", "a long enough passphrase")
	member := login(t, stack.URL, "member@example.com", "a long enough passphrase")
	other := login(t, stack.URL, "other@example.com", "a long enough passphrase")

	// The first step makes the session; nobody can watch it yet.
	fake.Reply(`<Thought>Search first.</Thought><Action>setValue(1, "wool socks")</Action>`)
	page := map[string]any{"url": "https://shop.example/", "query": "find wool socks", "dom": shopPage}
	_, first, e := interact(t, stack.URL, owner, page)
	if first.SessionID == "" {
		t.Fatalf("first step: %+v", e)
	}
	next := map[string]any{"url": "https://shop.example/", "query": "find wool socks", "dom": shopPage, "taskId": first.TaskID, "lastActionStatus": "success"}

	t.Run("tickets", func(t *testing.T) {
		asked := time.Now()
		tk := realtimeTicket(t, stack, owner)
		answered := time.Now()
		if tk.URL != stack.WebSocketURL {
			t.Errorf("ticket url = %q, want the stack's %q", tk.URL, stack.WebSocketURL)
		}
		if exp, err := time.Parse(time.RFC3339, tk.ExpiresAt); err != nil || !exp.After(asked) || exp.After(answered.Add(time.Minute)) {
			t.Errorf("expiresAt = %q, want after the request (%v) and within a minute of its answer (%v)", tk.ExpiresAt, asked, answered)
		}
		conn, _, err := websocket.Dial(ctx, tk.URL+"/?ticket="+tk.Ticket, nil)
		if err != nil {
			t.Fatalf("connect with a fresh ticket: %v", err)
		}
		conn.Close(websocket.StatusNormalClosure, "")

		expired := "an-expired-ticket-of-the-owner"
		sum := sha256.Sum256([]byte(expired))
		if err := realtimedb.New(stack.DB.Client, stack.DB.Tables["RealtimeTable"]).PutTicket(ctx, hex.EncodeToString(sum[:]),
			realtime.Owner{TenantID: org.ID, UserID: "u"}, time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		for name, query := range map[string]string{
			"no ticket": "", "unknown ticket": "?ticket=not-a-ticket", "used ticket": "?ticket=" + tk.Ticket,
			"expired ticket": "?ticket=" + expired, "a bearer token": "?ticket=" + owner,
		} {
			conn, resp, err := websocket.Dial(ctx, stack.WebSocketURL+"/"+query, nil)
			if err == nil {
				conn.CloseNow()
			}
			if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: got %v %v, want the upgrade refused with 401", name, resp, err)
			}
		}
		if status, _, body := call(t, "POST", stack.URL+"/api/realtime/ticket", "", nil); status != 401 || decode(t, body).Code != "UNAUTHORIZED" {
			t.Errorf("ticket without a token = %d %s, want 401 UNAUTHORIZED", status, body)
		}
	})

	ada := connectWS(t, stack, owner)
	mallory := connectWS(t, stack, other)
	colleague := connectWS(t, stack, member)

	t.Run("bad messages", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			body any
			code string
		}{
			{"unknown action", map[string]string{"action": "dance"}, realtime.CodeUnknownAction},
			{"no id", map[string]string{"action": "subscribe"}, realtime.CodeBadRequest},
			{"both ids", map[string]string{"action": "subscribe", "sessionId": first.SessionID, "runId": first.SessionID}, realtime.CodeBadRequest},
			{"not a uuid", map[string]string{"action": "subscribe", "sessionId": "42"}, realtime.CodeBadRequest},
			{"negative since", map[string]any{"action": "subscribe", "sessionId": first.SessionID, "since": -1}, realtime.CodeBadRequest},
			{"not json", "hello", realtime.CodeBadRequest},
		} {
			if s, ok := tc.body.(string); ok {
				ada.conn.Write(ctx, websocket.MessageText, []byte(s))
			} else {
				ada.send(tc.body)
			}
			if m := ada.next(); m["type"] != "error" || m["code"] != tc.code {
				t.Errorf("%s: got %v, want an error event %s", tc.name, m, tc.code)
			}
		}
	})

	if m := subscribeTo(ada, "sessionId", first.SessionID, nil); m["type"] != "subscribed" || m["sessionId"] != first.SessionID || m["lastId"] != 0.0 {
		t.Fatalf("subscribe = %v, want subscribed to the session with lastId 0", m)
	}
	for name, c := range map[string]*wsClient{"another tenant": mallory, "another member of the organization": colleague} {
		if m := subscribeTo(c, "sessionId", first.SessionID, nil); m["type"] != "error" || m["code"] != realtime.CodeNotFound {
			t.Errorf("%s subscribing to the owner's session: got %v, want an error NOT_FOUND", name, m)
		}
	}

	// A step that makes a plan and extracts a value.
	fake.Reply("<Thought>Plan it.</Thought><Plan>1. Search for wool socks\n2. Open the first result</Plan><Step>1</Step>" +
		"<Extract>brand = Woolly</Extract><Action>click(2)</Action>")
	if status, d, e := interact(t, stack.URL, owner, next); status != 200 || d.Action != "click(2)" {
		t.Fatalf("step 2 = %d %+v %+v", status, d, e)
	}
	got := ada.marker()
	progress := ofType(got, "step_progress")
	if len(progress) != 3 || progress[0]["stepStatus"] != "executing" || progress[0]["currentStep"] != 2.0 ||
		progress[1]["stepDescription"] != "Search for wool socks" || progress[1]["stepStatus"] != "executing" || progress[1]["totalSteps"] != 2.0 ||
		progress[2]["currentStep"] != 2.0 || progress[2]["stepStatus"] != "pending" {
		t.Errorf("step_progress = %v, want the announcement before the model, then the new plan's two steps", progress)
	}
	if vars := ofType(got, "variable_extracted"); len(vars) != 1 || vars[0]["key"] != "brand" || vars[0]["value"] != "Woolly" || vars[0]["taskId"] != first.TaskID {
		t.Errorf("variable_extracted = %v, want brand = Woolly", vars)
	}
	var lastSeen int64
	for i, m := range got {
		if id := int64(m["id"].(float64)); id != int64(i+1) {
			t.Errorf("message %d has id %d, want %d (ids increase by one)", i, id, i+1)
		}
		lastSeen = int64(m["id"].(float64))
	}
	for name, c := range map[string]*wsClient{"another tenant": mallory, "another member of the organization": colleague} {
		if leaked := c.marker(); len(leaked) != 0 {
			t.Errorf("%s received %v, want nothing", name, leaked)
		}
	}

	t.Run("run steps", func(t *testing.T) {
		runID := runClient{t, stack.URL, owner}.start("autonomous")
		for name, c := range map[string]*wsClient{"another tenant": mallory, "another member of the organization": colleague} {
			if m := subscribeTo(c, "runId", runID, nil); m["type"] != "error" || m["code"] != realtime.CodeNotFound {
				t.Errorf("%s subscribing to the owner's run: got %v, want an error NOT_FOUND", name, m)
			}
		}
		if m := subscribeTo(ada, "runId", runID, nil); m["type"] != "subscribed" || m["runId"] != runID {
			t.Fatalf("subscribe to the run = %v", m)
		}
		// A connection gone without $disconnect: the post answers 410 and its records go.
		store := realtimedb.New(stack.DB.Client, stack.DB.Tables["RealtimeTable"])
		ghost := realtime.Owner{TenantID: org.ID, UserID: "ghost-user"}
		if err := store.PutConnection(ctx, "ghost", ghost, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := store.Subscribe(ctx, "ghost", ghost, realtime.Run(runID), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		fake.Reply(toolReply("click", `{"id":"agent-2"}`))
		status, step := runClient{t, stack.URL, owner}.step(runID, snapshot("https://shop.example/"), nil)
		if status != 200 || step.Tool == nil {
			t.Fatalf("run step = %d %+v", status, step)
		}
		msgs := ada.marker()
		if len(msgs) != 1 || msgs[0]["type"] != "run_step" || msgs[0]["runId"] != runID || msgs[0]["step"] != 1.0 ||
			msgs[0]["action"] != step.Action || msgs[0]["tool"] != step.Tool.Name || msgs[0]["status"] != step.State.Status {
			t.Errorf("run events = %v, want one run_step of step 1 (%s %s, %s)", msgs, step.Action, step.Tool.Name, step.State.Status)
		}
		if _, err := store.Connection(ctx, "ghost", time.Now()); err == nil {
			t.Error("the gone connection is still recorded after a post answered 410")
		}
		for name, c := range map[string]*wsClient{"another tenant": mallory, "another member of the organization": colleague} {
			if leaked := c.marker(); len(leaked) != 0 {
				t.Errorf("%s received %v, want nothing", name, leaked)
			}
		}
	})

	t.Run("disconnect and resume", func(t *testing.T) {
		const disconnected = `"route":"$disconnect"`
		before := strings.Count(funcLogs.String(), disconnected)
		for _, c := range []*wsClient{ada, mallory, colleague} {
			c.conn.Close(websocket.StatusNormalClosure, "")
		}
		// $disconnect runs after the close: wait until each of the three has logged its request.
		funcLogs.Await(t, "three $disconnect requests", func(written string) bool {
			return strings.Count(written, disconnected) >= before+3
		})
		if left := realtimeItems(t, stack, "CONN#"); len(left) > 0 {
			t.Fatalf("connections still recorded after the close: %v", left)
		}
		// While nobody is connected, the task finishes.
		fake.Reply("<Thought>Done.</Thought><Step>2</Step><Action>finish(\"Found them\")</Action>")
		if status, d, e := interact(t, stack.URL, owner, next); status != 200 || d.Status != "completed" {
			t.Fatalf("step 3 = %d %+v %+v", status, d, e)
		}
		back := connectWS(t, stack, owner)
		m := subscribeTo(back, "sessionId", first.SessionID, &lastSeen)
		if m["type"] != "subscribed" || m["lastId"].(float64) <= float64(lastSeen) {
			t.Fatalf("resubscribe = %v, want subscribed with a lastId past %d", m, lastSeen)
		}
		// The replay follows "subscribed" in the same invocation; read up to the last id.
		var missed []map[string]any
		for len(missed) == 0 || missed[len(missed)-1]["id"] != m["lastId"] {
			missed = append(missed, back.next())
		}
		for i, e := range missed {
			if id := int64(e["id"].(float64)); id != lastSeen+1+int64(i) {
				t.Errorf("replayed message %d has id %d, want %d: no gap, no repeat", i, id, lastSeen+1+int64(i))
			}
		}
		if st := ofType(missed, "task_status"); len(st) != 1 || st[0]["status"] != "completed" {
			t.Errorf("task_status = %v, want completed", st)
		}
	})
}
