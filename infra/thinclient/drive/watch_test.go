package drive

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// lines is an io.Writer that hands each write to the test.
type lines chan string

func (l lines) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// Watch gets a ticket, connects with it, sends subscribe and prints each message on a line.
func TestWatch(t *testing.T) {
	got := make(chan string, 1)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/realtime/ticket":
			if r.Header.Get("Authorization") != "Bearer tok" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			io.WriteString(w, `{"success":true,"data":{"ticket":"tk","expiresAt":"2026-01-01T00:00:00Z","url":"ws://`+strings.TrimPrefix(srv.URL, "http://")+`"}}`)
		case r.URL.Query().Get("ticket") == "tk":
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			_, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			got <- string(msg)
			c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"subscribed","sessionId":"s1","lastId":0}`))
			c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"step_progress","id":1}`))
			c.Read(r.Context()) // until the client closes
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	api := &API{base: srv.URL, token: "tok", http: srv.Client()}
	out := make(lines, 4)
	w, err := api.Watch(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Subscribe(ctx, "sessionId", "s1"); err != nil {
		t.Fatal(err)
	}
	next := func(ch <-chan string) string {
		select {
		case s := <-ch:
			return s
		case <-ctx.Done():
			t.Fatal("timed out waiting for a message")
			return ""
		}
	}
	if msg := next(got); msg != `{"action":"subscribe","sessionId":"s1"}` {
		t.Errorf("sent %s, want the subscribe message", msg)
	}
	for _, want := range []string{`event: {"type":"subscribed","sessionId":"s1","lastId":0}` + "\n", `event: {"type":"step_progress","id":1}` + "\n"} {
		if line := next(out); line != want {
			t.Errorf("printed %q, want %q", line, want)
		}
	}
}
