package drive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/coder/websocket"
)

// Watcher is a connection to the WebSocket API of real-time events (docs/realtime.md) that
// writes every message it receives to an io.Writer, one JSON object a line.
type Watcher struct {
	conn *websocket.Conn
	done chan struct{}
}

// pingEvery keeps the connection inside API Gateway's 10-minute idle timeout.
const pingEvery = 5 * time.Minute

// Watch gets a ticket and connects with it; messages go to out until ctx ends or Close.
func (a *API) Watch(ctx context.Context, out io.Writer) (*Watcher, error) {
	var t struct {
		Data struct {
			Ticket string `json:"ticket"`
			URL    string `json:"url"`
		} `json:"data"`
	}
	if err := a.post(ctx, "/api/realtime/ticket", struct{}{}, &t); err != nil {
		return nil, fmt.Errorf("realtime ticket: %w", err)
	}
	conn, _, err := websocket.Dial(ctx, t.Data.URL+"/?ticket="+t.Data.Ticket, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", t.Data.URL, err)
	}
	w := &Watcher{conn: conn, done: make(chan struct{})}
	go w.read(ctx, out)
	go w.ping(ctx)
	return w, nil
}

func (w *Watcher) read(ctx context.Context, out io.Writer) {
	defer close(w.done)
	for {
		_, data, err := w.conn.Read(ctx)
		if err != nil {
			return
		}
		fmt.Fprintf(out, "event: %s\n", data)
	}
}

func (w *Watcher) ping(ctx context.Context) {
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-tick.C:
			if w.conn.Ping(ctx) != nil {
				return
			}
		}
	}
}

// Subscribe asks for the events of a session (field "sessionId") or a run ("runId").
func (w *Watcher) Subscribe(ctx context.Context, field, id string) error {
	data, _ := json.Marshal(map[string]string{"action": "subscribe", field: id})
	return w.conn.Write(ctx, websocket.MessageText, data)
}

// Close ends the connection.
func (w *Watcher) Close() { w.conn.Close(websocket.StatusNormalClosure, "") }
