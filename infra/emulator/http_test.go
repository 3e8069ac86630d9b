package emulator

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/screenagent/backend/shared/sam"
)

// echoed decodes the event the echo function sends back.
func echoed(t *testing.T, r response) events.APIGatewayV2HTTPRequest {
	t.Helper()
	wantStatus(t, r, http.StatusOK, "")
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(r.body, &ev); err != nil {
		t.Fatalf("decode event: %v", err)
	}
	return ev
}

func TestHTTPEvent(t *testing.T) {
	_, url, _ := startEmulator(t, Config{})
	before := time.Now()
	r := send(t, http.MethodGet, url+"/echo/a%20b?a=1&a=2&b=x%2Fy", map[string]string{
		"User-Agent": "emulator-test",
		"X-Custom":   "v",
		"Cookie":     "c1=v1; c2=v2",
	}, nil)
	ev := echoed(t, r)

	checks := []struct {
		name      string
		got, want any
	}{
		{"version", ev.Version, "2.0"},
		{"routeKey", ev.RouteKey, "GET /echo/{id}"},
		{"rawPath", ev.RawPath, "/echo/a%20b"},
		{"rawQueryString", ev.RawQueryString, "a=1&a=2&b=x%2Fy"},
		{"cookies", ev.Cookies, []string{"c1=v1", "c2=v2"}},
		{"queryStringParameters", ev.QueryStringParameters, map[string]string{"a": "1,2", "b": "x/y"}},
		{"pathParameters", ev.PathParameters, map[string]string{"id": "a b"}},
		{"headers[x-custom]", ev.Headers["x-custom"], "v"},
		{"headers[user-agent]", ev.Headers["user-agent"], "emulator-test"},
		{"headers[host]", ev.Headers["host"], strings.TrimPrefix(url, "http://")},
		{"headers[x-forwarded-for]", ev.Headers["x-forwarded-for"], "127.0.0.1"},
		{"headers has cookie", hasKey(ev.Headers, "cookie"), false},
		{"body", ev.Body, ""},
		{"isBase64Encoded", ev.IsBase64Encoded, false},
		{"requestContext.routeKey", ev.RequestContext.RouteKey, "GET /echo/{id}"},
		{"requestContext.stage", ev.RequestContext.Stage, "$default"},
		{"requestContext.apiId", ev.RequestContext.APIID, "local"},
		{"requestContext.accountId", ev.RequestContext.AccountID, "000000000000"},
		{"requestContext.domainName", ev.RequestContext.DomainName, strings.TrimPrefix(url, "http://")},
		{"requestContext.requestId", ev.RequestContext.RequestID, r.header.Get("Apigw-Requestid")},
		{"requestContext.http", ev.RequestContext.HTTP, events.APIGatewayV2HTTPRequestContextHTTPDescription{
			Method: "GET", Path: "/echo/a%20b", Protocol: "HTTP/1.1", SourceIP: "127.0.0.1", UserAgent: "emulator-test",
		}},
		{"requestContext.timeEpoch recent", ev.RequestContext.TimeEpoch >= before.UnixMilli(), true},
	}
	for _, c := range checks {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if !strings.HasPrefix(ev.Headers["x-amzn-trace-id"], "Root=1-") {
		t.Errorf("got x-amzn-trace-id %q, want Root=1-...", ev.Headers["x-amzn-trace-id"])
	}
	if ev.RequestContext.RequestID == "" {
		t.Error("got an empty requestId")
	}
	if _, err := time.Parse("02/Jan/2006:15:04:05 -0700", ev.RequestContext.Time); err != nil {
		t.Errorf("got requestContext.time %q: %v", ev.RequestContext.Time, err)
	}
}

func TestHTTPRepeatedHeadersAndUniqueRequestIDs(t *testing.T) {
	_, url, _ := startEmulator(t, Config{})
	req, _ := http.NewRequest(http.MethodGet, url+"/echo/1", nil)
	req.Header.Add("X-Multi", "one")
	req.Header.Add("X-Multi", "two")
	ids := map[string]bool{}
	for range 2 {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var ev events.APIGatewayV2HTTPRequest
		err = json.NewDecoder(resp.Body).Decode(&ev)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := ev.Headers["x-multi"]; got != "one,two" {
			t.Errorf("got x-multi %q, want %q", got, "one,two")
		}
		ids[ev.RequestContext.RequestID] = true
	}
	if len(ids) != 2 {
		t.Errorf("got request IDs %v, want 2 different", slices.Collect(maps.Keys(ids)))
	}
}

func TestHTTPRouting(t *testing.T) {
	_, url, _ := startEmulator(t, Config{})
	tests := []struct {
		method, path string
		wantKey      string
		wantParams   map[string]string
	}{
		{"GET", "/echo/special", "GET /echo/special", nil},
		{"GET", "/echo/123", "GET /echo/{id}", map[string]string{"id": "123"}},
		{"POST", "/echo/123", "ANY /echo/{proxy+}", map[string]string{"proxy": "123"}},
		{"GET", "/echo/a/b/c", "ANY /echo/{proxy+}", map[string]string{"proxy": "a/b/c"}},
		{"POST", "/echo", "POST /echo", nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			ev := echoed(t, send(t, tt.method, url+tt.path, nil, nil))
			if ev.RouteKey != tt.wantKey {
				t.Errorf("got routeKey %q, want %q", ev.RouteKey, tt.wantKey)
			}
			if !maps.Equal(ev.PathParameters, tt.wantParams) {
				t.Errorf("got pathParameters %v, want %v", ev.PathParameters, tt.wantParams)
			}
		})
	}
	for _, path := range []string{"/nope", "/echo", "/echo/"} {
		t.Run("GET "+path, func(t *testing.T) {
			r := get(t, url+path)
			wantStatus(t, r, http.StatusNotFound, `{"message":"Not Found"}`)
			if got := r.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("got Content-Type %q, want application/json", got)
			}
		})
	}
}

func TestHTTPBodies(t *testing.T) {
	_, url, _ := startEmulator(t, Config{})
	tests := []struct {
		name        string
		contentType string
		body        []byte
		wantBase64  bool
	}{
		{"json", "application/json", []byte(`{"a":1}`), false},
		{"utf-8 text", "text/plain; charset=utf-8", []byte("héllo"), false},
		{"vendor json", "application/vnd.api+json", []byte(`{}`), false},
		{"binary", "application/octet-stream", []byte{0, 1, 2, 0xff}, true},
		{"text that is not utf-8", "text/plain", []byte{0xff, 0xfe}, true},
		{"image", "image/png", []byte("\x89PNG"), true},
		{"no content type", "", []byte("abc"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{"Content-Type": tt.contentType}
			ev := echoed(t, send(t, http.MethodPost, url+"/echo", header, tt.body))
			if ev.IsBase64Encoded != tt.wantBase64 {
				t.Errorf("got isBase64Encoded %v, want %v", ev.IsBase64Encoded, tt.wantBase64)
			}
			got := []byte(ev.Body)
			if ev.IsBase64Encoded {
				var err error
				if got, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
					t.Fatalf("decode body: %v", err)
				}
			}
			if !bytes.Equal(got, tt.body) {
				t.Errorf("got body %q, want %q", got, tt.body)
			}

			// And back: the function answers with the bytes base64-encoded.
			r := send(t, http.MethodPost, url+"/echo?mode=raw", header, tt.body)
			wantStatus(t, r, http.StatusOK, "")
			if !bytes.Equal(r.body, tt.body) {
				t.Errorf("got response body %q, want %q", r.body, tt.body)
			}
		})
	}
}

func TestHTTPResponse(t *testing.T) {
	_, url, _ := startEmulator(t, Config{})
	r := get(t, url+"/echo/1")
	wantStatus(t, r, http.StatusOK, "")
	checks := []struct {
		name      string
		got, want any
	}{
		{"Set-Cookie", r.header.Values("Set-Cookie"), []string{"session=abc; Path=/", "theme=dark"}},
		{"X-Multi", r.header.Values("X-Multi"), []string{"a", "b"}},
		{"Content-Type", r.header.Get("Content-Type"), "application/json"},
		{"function's CORS header dropped", r.header.Get("Access-Control-Allow-Origin"), ""},
		{"has apigw-requestid", r.header.Get("Apigw-Requestid") != "", true},
	}
	for _, c := range checks {
		if !equal(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}

	r = get(t, url+"/echo/1?mode=plain")
	wantStatus(t, r, http.StatusOK, `{"hello":"world"}`)
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("output without statusCode: got Content-Type %q, want application/json", got)
	}
}

func TestHTTPBodyLimit(t *testing.T) {
	_, url, _ := startEmulator(t, Config{})
	tests := []struct {
		size int
		want int
	}{
		{maxRequestBody, http.StatusOK},
		{maxRequestBody + 1, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		r := send(t, http.MethodPost, url+"/echo?mode=plain", map[string]string{"Content-Type": "text/plain"}, bytes.Repeat([]byte("a"), tt.size))
		if r.status != tt.want {
			t.Errorf("%d bytes: got status %d, want %d", tt.size, r.status, tt.want)
		}
	}
}

func TestHTTPCORS(t *testing.T) {
	const allowed = "chrome-extension://abcdef"
	_, url, logs := startEmulator(t, Config{})
	preflight := func(origin string) response {
		// InitExitFunction can't start: a 204 shows no function ran.
		return send(t, http.MethodOptions, url+"/initexit", map[string]string{
			"Origin":                         origin,
			"Access-Control-Request-Method":  "GET",
			"Access-Control-Request-Headers": "authorization",
		}, nil)
	}
	tests := []struct {
		name string
		r    response
		want http.Header
	}{
		{"preflight, allowed origin", preflight(allowed), http.Header{
			"Access-Control-Allow-Origin":  {allowed},
			"Access-Control-Allow-Methods": {"GET,POST"},
			"Access-Control-Allow-Headers": {"Authorization,Content-Type"},
			"Access-Control-Max-Age":       {"600"},
		}},
		{"preflight, other origin", preflight("https://evil.example"), http.Header{}},
		{"request, allowed origin", send(t, http.MethodGet, url+"/echo/1", map[string]string{"Origin": allowed}, nil), http.Header{
			"Access-Control-Allow-Origin":   {allowed},
			"Access-Control-Expose-Headers": {"X-Pid"},
		}},
		{"request, other origin", send(t, http.MethodGet, url+"/echo/1", map[string]string{"Origin": "https://evil.example"}, nil), http.Header{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := http.Header{}
			for k, v := range tt.r.header {
				if strings.HasPrefix(k, "Access-Control-") {
					got[k] = v
				}
			}
			assertHeaders(t, tt.name, got, tt.want)
		})
	}
	for _, tt := range tests[:2] {
		if tt.r.status != http.StatusNoContent {
			t.Errorf("%s: got status %d, want 204", tt.name, tt.r.status)
		}
	}
	if strings.Contains(logs.String(), "InitExitFunction") {
		t.Errorf("a preflight reached a function: %s", logs)
	}
}

func TestHTTPCORSAnyOrigin(t *testing.T) {
	_, url, _ := startEmulator(t, Config{Env: sam.Env{Parameters: map[string]string{"AllowedOrigins": "*"}}})
	r := send(t, http.MethodGet, url+"/echo/1", map[string]string{"Origin": "https://anyone.example"}, nil)
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("got Access-Control-Allow-Origin %q, want *", got)
	}
}

func TestRequestLog(t *testing.T) {
	_, url, logs := startEmulator(t, Config{})
	get(t, url+"/echo/1")
	get(t, url+"/echo/1")
	type line struct {
		Msg            string
		Method, Path   string
		Function       string
		Status         int
		DurationMs     *int64
		InitDurationMs *int64
	}
	var requests, coldStarts []line
	for _, s := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		switch l.Msg {
		case "request":
			requests = append(requests, l)
		case "cold start":
			coldStarts = append(coldStarts, l)
		}
	}
	if len(requests) != 2 {
		t.Fatalf("got %d request lines, want 2:\n%s", len(requests), logs)
	}
	for _, l := range requests {
		if l.Method != "GET" || l.Path != "/echo/1" || l.Function != "EchoFunction" || l.Status != 200 || l.DurationMs == nil {
			t.Errorf("got request line %+v, want GET /echo/1 EchoFunction 200 with durationMs", l)
		}
	}
	if len(coldStarts) != 1 || coldStarts[0].Function != "EchoFunction" || coldStarts[0].InitDurationMs == nil {
		t.Errorf("got cold start lines %+v, want one for EchoFunction with initDurationMs", coldStarts)
	}
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// equal compares the values of a table of checks by their JSON, which is how they traveled.
func equal(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
