package emulator

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// startWS serves the test template's WebSocket API; its functions post back through its own
// management endpoint.
func startWS(t *testing.T) (string, *logBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strings.Split(ln.Addr().String(), ":")[1]
	e, _, logs := startEmulator(t, Config{Overrides: map[string]string{"WS_ENDPOINT": "http://" + addr}})
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: e.WebSocketHandler()}}
	srv.Start()
	t.Cleanup(func() {
		e.Close()
		srv.Close()
	})
	return addr, logs
}

func dial(t *testing.T, addr, query string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(context.Background(), "ws://"+addr+"/"+query, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func readJSON(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("message %s: %v", data, err)
	}
	return m
}

// Messages are routed by $request.body.action, to $default when no route has the value, and
// reach the function as MESSAGE events of their connection; the function's PostToConnection
// reaches the client through the management endpoint.
func TestWebSocketRoutesMessages(t *testing.T) {
	addr, _ := startWS(t)
	c := dial(t, addr, "?ticket=x")
	for _, tc := range []struct{ body, route string }{
		{`{"action":"echo","n":1}`, "echo"},
		{`{"action":"nope"}`, "$default"},
		{`{"action":"$connect"}`, "$default"},
		{`not json`, "$default"},
	} {
		if err := c.Write(context.Background(), websocket.MessageText, []byte(tc.body)); err != nil {
			t.Fatal(err)
		}
		m := readJSON(t, c)
		if m["route"] != tc.route || m["body"] != tc.body || m["eventType"] != "MESSAGE" || m["connectionId"] == "" {
			t.Errorf("%s: got %v, want route %s with the body", tc.body, m, tc.route)
		}
	}
}

// $connect's answer decides the upgrade: anything but 2xx is the HTTP response, no WebSocket.
func TestWebSocketConnectRefusal(t *testing.T) {
	addr, _ := startWS(t)
	for _, status := range []int{401, 403} {
		_, resp, err := websocket.Dial(context.Background(), "ws://"+addr+"/?deny="+strconv.Itoa(status), nil)
		if err == nil || resp == nil || resp.StatusCode != status {
			t.Errorf("deny=%d: got %v %v, want the upgrade refused with %d", status, resp, err, status)
		}
	}
}

// The management endpoint answers 410 for a connection that is gone and 403 without a SigV4
// signature; the client's close runs $disconnect.
func TestWebSocketManagement(t *testing.T) {
	addr, logs := startWS(t)
	c := dial(t, addr, "")
	if err := c.Write(context.Background(), websocket.MessageText, []byte(`{"action":"echo","to":"Z29uZQ=="}`)); err != nil {
		t.Fatal(err)
	}
	if m := readJSON(t, c); m["postStatus"] != 410.0 {
		t.Errorf("post to a gone connection: got %v, want postStatus 410", m)
	}
	res, err := http.Post("http://"+addr+"/@connections/abc", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("unsigned post: got %d, want 403", res.StatusCode)
	}
	c.Close(websocket.StatusNormalClosure, "bye")
	logs.await(t, "websocket disconnect", "WsEchoFunction")
}
