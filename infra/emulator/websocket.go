package emulator

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/screenagent/backend/shared/sam"
)

// API Gateway's WebSocket limits (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html).
const (
	wsMaxFrame    = 32 << 10 // a frame of 32 KB or more closes the connection (1009)
	wsIdleTimeout = 10 * time.Minute
	wsMaxDuration = 2 * time.Hour
)

// wsAPI is the template's WebSocket API: its routes and its live connections.
type wsAPI struct {
	id        string
	selection string            // the body field of "$request.body.<field>"
	routes    map[string]string // route key → function logical ID

	mu    sync.Mutex
	conns map[string]*wsConn
}

// wsConn is one client connection.
type wsConn struct {
	id          string
	conn        *websocket.Conn
	connectedAt time.Time
	sourceIP    string
	userAgent   string
	// activity is signalled by each message either way, restarting the idle timer.
	activity chan struct{}
	mu       sync.Mutex
	lastSeen time.Time
}

func newWSAPI(t *sam.Template) *wsAPI {
	apis := t.WebSocketAPIs()
	if len(apis) == 0 {
		return nil
	}
	a := apis[0]
	w := &wsAPI{id: a.LogicalID, routes: map[string]string{}, conns: map[string]*wsConn{}}
	w.selection, _ = strings.CutPrefix(a.RouteSelection, "$request.body.")
	for _, r := range a.Routes {
		w.routes[r.Key] = r.Function
	}
	return w
}

// HasWebSocket reports whether the template defines a WebSocket API.
func (e *Emulator) HasWebSocket() bool { return e.ws != nil }

// WebSocketHandler serves the template's WebSocket API as API Gateway does, and on the same
// address its management API (POST, GET and DELETE /@connections/{id}, SigV4-signed), which the
// functions' PostToConnection reach when REALTIME_ENDPOINT names this address. An upgrade is
// accepted only after $connect answers 2xx; any other answer is the HTTP response, no upgrade.
func (e *Emulator) WebSocketHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.ws == nil {
			writeGateway(w, gatewayError(http.StatusNotFound, "Not Found"))
			return
		}
		if i := strings.Index(r.URL.Path, "/@connections/"); i >= 0 {
			e.manage(w, r, r.URL.Path[i+len("/@connections/"):])
			return
		}
		e.connect(w, r)
	})
}

func writeGateway(w http.ResponseWriter, res httpResponse) {
	for k, vs := range res.header {
		w.Header()[k] = vs
	}
	w.WriteHeader(res.status)
	w.Write(res.body)
}

// wsEvent is the event API Gateway sends to a WebSocket route's Lambda proxy integration.
type wsEvent struct {
	Headers                         map[string]string   `json:"headers,omitempty"`
	MultiValueHeaders               map[string][]string `json:"multiValueHeaders,omitempty"`
	QueryStringParameters           map[string]string   `json:"queryStringParameters,omitempty"`
	MultiValueQueryStringParameters map[string][]string `json:"multiValueQueryStringParameters,omitempty"`
	RequestContext                  wsContext           `json:"requestContext"`
	Body                            string              `json:"body,omitempty"`
	IsBase64Encoded                 bool                `json:"isBase64Encoded"`
}

type wsContext struct {
	RouteKey             string     `json:"routeKey"`
	EventType            string     `json:"eventType"`
	MessageID            string     `json:"messageId,omitempty"`
	ExtendedRequestID    string     `json:"extendedRequestId"`
	RequestTime          string     `json:"requestTime"`
	MessageDirection     string     `json:"messageDirection"`
	DisconnectStatusCode int        `json:"disconnectStatusCode,omitempty"`
	DisconnectReason     string     `json:"disconnectReason,omitempty"`
	Stage                string     `json:"stage"`
	ConnectedAt          int64      `json:"connectedAt"`
	RequestTimeEpoch     int64      `json:"requestTimeEpoch"`
	Identity             wsIdentity `json:"identity"`
	RequestID            string     `json:"requestId"`
	DomainName           string     `json:"domainName"`
	ConnectionID         string     `json:"connectionId"`
	APIID                string     `json:"apiId"`
}

type wsIdentity struct {
	SourceIP  string `json:"sourceIp"`
	UserAgent string `json:"userAgent,omitempty"`
}

func (e *Emulator) wsContext(c *wsConn, host, routeKey, eventType string, now time.Time) wsContext {
	id := newAPIRequestID()
	return wsContext{
		RouteKey: routeKey, EventType: eventType, ExtendedRequestID: id, RequestID: id,
		RequestTime: now.UTC().Format("02/Jan/2006:15:04:05 -0700"), MessageDirection: "IN",
		Stage: "local", ConnectedAt: c.connectedAt.UnixMilli(), RequestTimeEpoch: now.UnixMilli(),
		Identity: wsIdentity{SourceIP: c.sourceIP, UserAgent: c.userAgent}, DomainName: host,
		ConnectionID: c.id, APIID: e.ws.id,
	}
}

// connect runs $connect with the handshake's headers and query, then upgrades.
func (e *Emulator) connect(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	sourceIP, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		sourceIP = r.RemoteAddr
	}
	c := &wsConn{id: newAPIRequestID(), connectedAt: now, sourceIP: sourceIP, userAgent: r.UserAgent(), activity: make(chan struct{}, 1), lastSeen: now}
	ev := wsEvent{Headers: map[string]string{}, MultiValueHeaders: map[string][]string{},
		RequestContext: e.wsContext(c, r.Host, "$connect", "CONNECT", now)}
	for k, vs := range r.Header {
		ev.Headers[k] = strings.Join(vs, ",")
		ev.MultiValueHeaders[k] = vs
	}
	if q, _ := url.ParseQuery(r.URL.RawQuery); len(q) > 0 {
		ev.QueryStringParameters, ev.MultiValueQueryStringParameters = map[string]string{}, q
		for k, vs := range q {
			ev.QueryStringParameters[k] = vs[len(vs)-1]
		}
	}
	// A $connect route is optional: without one every connection is admitted.
	if fn, ok := e.ws.routes["$connect"]; ok {
		res, err := e.wsInvoke(r.Context(), fn, ev)
		if err != nil {
			writeGateway(w, gatewayError(http.StatusInternalServerError, "Internal server error"))
			e.log.Info("websocket connect", "connectionId", c.id, "status", http.StatusInternalServerError)
			return
		}
		if res.status/100 != 2 {
			writeGateway(w, res)
			e.log.Info("websocket connect refused", "connectionId", c.id, "status", res.status)
			return
		}
	}
	// API Gateway checks no Origin: an extension's page connects from chrome-extension://.
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		e.disconnect(c, r.Host, int(websocket.StatusAbnormalClosure), "upgrade failed")
		return
	}
	conn.SetReadLimit(wsMaxFrame - 1)
	c.conn = conn
	e.ws.mu.Lock()
	e.ws.conns[c.id] = c
	e.ws.mu.Unlock()
	e.log.Info("websocket connect", "connectionId", c.id, "status", http.StatusOK)
	e.serveConn(c, r.Host)
}

// serveConn reads messages until the connection closes, times out idle or reaches its maximum
// duration, invoking each message's route concurrently, as API Gateway does; then $disconnect.
func (e *Emulator) serveConn(c *wsConn, host string) {
	ctx, cancel := context.WithTimeout(context.Background(), wsMaxDuration)
	defer cancel()
	go func() {
		idle := time.NewTimer(wsIdleTimeout)
		defer idle.Stop()
		for {
			select {
			case <-ctx.Done():
				c.conn.Close(websocket.StatusGoingAway, "Going away")
				return
			case <-e.done:
				c.conn.Close(websocket.StatusGoingAway, "Going away")
				return
			case <-idle.C:
				c.conn.Close(websocket.StatusGoingAway, "Going away")
				return
			case <-c.activity:
				idle.Reset(wsIdleTimeout)
			}
		}
	}()
	code, reason := int(websocket.StatusNoStatusRcvd), ""
	var wg sync.WaitGroup
	for {
		typ, data, err := c.conn.Read(ctx)
		if err != nil {
			if s := websocket.CloseStatus(err); s != -1 {
				code = int(s)
				var ce websocket.CloseError
				if errors.As(err, &ce) {
					reason = ce.Reason
				}
			} else if errors.Is(err, context.DeadlineExceeded) {
				code = int(websocket.StatusGoingAway)
			}
			break
		}
		c.touch()
		wg.Go(func() { e.message(ctx, c, host, typ, data) })
	}
	cancel()
	wg.Wait()
	e.ws.mu.Lock()
	delete(e.ws.conns, c.id)
	e.ws.mu.Unlock()
	c.conn.CloseNow()
	e.disconnect(c, host, code, reason)
}

func (c *wsConn) touch() {
	c.mu.Lock()
	c.lastSeen = time.Now()
	c.mu.Unlock()
	select {
	case c.activity <- struct{}{}:
	default:
	}
}

// message routes one client message by the route selection expression.
func (e *Emulator) message(ctx context.Context, c *wsConn, host string, typ websocket.MessageType, data []byte) {
	key := "$default"
	if e.ws.selection != "" {
		var body map[string]any
		if json.Unmarshal(data, &body) == nil {
			if v, ok := body[e.ws.selection].(string); ok && !strings.HasPrefix(v, "$") {
				if _, routed := e.ws.routes[v]; routed {
					key = v
				}
			}
		}
	}
	fn, ok := e.ws.routes[key]
	if !ok {
		c.conn.Write(ctx, websocket.MessageText, []byte(`{"message": "Forbidden", "connectionId":"`+c.id+`", "requestId":"`+newAPIRequestID()+`"}`))
		return
	}
	now := time.Now()
	ev := wsEvent{RequestContext: e.wsContext(c, host, key, "MESSAGE", now)}
	ev.RequestContext.MessageID = newAPIRequestID()
	if typ == websocket.MessageBinary {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(data), true
	} else {
		ev.Body = string(data)
	}
	res, err := e.wsInvoke(ctx, fn, ev)
	status := res.status
	if err != nil {
		status = http.StatusInternalServerError
		c.conn.Write(ctx, websocket.MessageText, []byte(`{"message": "Internal server error", "connectionId":"`+c.id+`", "requestId":"`+ev.RequestContext.RequestID+`"}`))
	}
	e.log.Info("websocket message", "connectionId", c.id, "route", key, "function", fn, "status", status, "durationMs", time.Since(now).Milliseconds())
}

// disconnect runs $disconnect, best-effort as in API Gateway: nobody hears its answer.
func (e *Emulator) disconnect(c *wsConn, host string, code int, reason string) {
	fn, ok := e.ws.routes["$disconnect"]
	select {
	case <-e.done:
		return // the emulator is closing: its functions are stopping too
	default:
	}
	if !ok {
		return
	}
	ev := wsEvent{RequestContext: e.wsContext(c, host, "$disconnect", "DISCONNECT", time.Now())}
	ev.RequestContext.DisconnectStatusCode, ev.RequestContext.DisconnectReason = code, reason
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e.wsInvoke(ctx, fn, ev)
	e.log.Info("websocket disconnect", "connectionId", c.id, "function", fn, "closeCode", code)
}

// wsInvoke invokes a route's function; a response that is not a structured one is a 200.
func (e *Emulator) wsInvoke(ctx context.Context, function string, ev wsEvent) (httpResponse, error) {
	payload, _ := json.Marshal(ev) // strings, maps of strings and numbers only
	out, err := e.invoke(ctx, e.functions[function], payload, newTraceRoot(time.Now()))
	if err != nil {
		return httpResponse{}, err
	}
	res, err := decodeResponse(out)
	if err != nil {
		e.log.Error("malformed function response", "function", function, "error", err)
		return httpResponse{}, err
	}
	return res, nil
}

// manage serves the management API for one connection.
func (e *Emulator) manage(w http.ResponseWriter, r *http.Request, rawID string) {
	id, err := url.PathUnescape(rawID)
	if err != nil || id == "" {
		writeGateway(w, gatewayError(http.StatusBadRequest, "Invalid connection id"))
		return
	}
	if sigV4Caller(r.Header.Get("Authorization"), e.accountID) == nil {
		writeGateway(w, gatewayError(http.StatusForbidden, "Missing Authentication Token"))
		return
	}
	e.ws.mu.Lock()
	c := e.ws.conns[id]
	e.ws.mu.Unlock()
	if c == nil {
		writeGateway(w, gatewayError(http.StatusGone, ""))
		return
	}
	switch r.Method {
	case http.MethodPost:
		data, err := io.ReadAll(io.LimitReader(r.Body, wsMaxFrame+1))
		switch {
		case err != nil:
			writeGateway(w, gatewayError(http.StatusBadRequest, "Bad Request"))
		case len(data) >= wsMaxFrame:
			writeGateway(w, gatewayError(http.StatusRequestEntityTooLarge, "Message too long"))
		case c.conn.Write(r.Context(), websocket.MessageText, data) != nil:
			writeGateway(w, gatewayError(http.StatusGone, ""))
		default:
			c.touch()
			w.WriteHeader(http.StatusOK)
		}
	case http.MethodGet:
		c.mu.Lock()
		last := c.lastSeen
		c.mu.Unlock()
		body, _ := json.Marshal(map[string]any{
			"connectedAt": c.connectedAt.UTC().Format(time.RFC3339Nano), "lastActiveAt": last.UTC().Format(time.RFC3339Nano),
			"identity": map[string]string{"sourceIp": c.sourceIP, "userAgent": c.userAgent},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	case http.MethodDelete:
		c.conn.Close(websocket.StatusNormalClosure, "")
		w.WriteHeader(http.StatusNoContent)
	default:
		writeGateway(w, gatewayError(http.StatusMethodNotAllowed, "Method Not Allowed"))
	}
}
