package emulator

import (
	"encoding/base64"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// httpEvent is API Gateway's payload format 2.0, field for field as HTTP API sends it.
type httpEvent struct {
	Version               string            `json:"version"`
	RouteKey              string            `json:"routeKey"`
	RawPath               string            `json:"rawPath"`
	RawQueryString        string            `json:"rawQueryString"`
	Cookies               []string          `json:"cookies,omitempty"`
	Headers               map[string]string `json:"headers"`
	QueryStringParameters map[string]string `json:"queryStringParameters,omitempty"`
	PathParameters        map[string]string `json:"pathParameters,omitempty"`
	RequestContext        requestContext    `json:"requestContext"`
	Body                  string            `json:"body,omitempty"`
	IsBase64Encoded       bool              `json:"isBase64Encoded"`
}

type requestContext struct {
	AccountID    string      `json:"accountId"`
	APIID        string      `json:"apiId"`
	Authorizer   *authorizer `json:"authorizer,omitempty"`
	DomainName   string      `json:"domainName"`
	DomainPrefix string      `json:"domainPrefix"`
	HTTP         httpContext `json:"http"`
	RequestID    string      `json:"requestId"`
	RouteKey     string      `json:"routeKey"`
	Stage        string      `json:"stage"`
	Time         string      `json:"time"`
	TimeEpoch    int64       `json:"timeEpoch"`
}

type httpContext struct {
	Method    string `json:"method"`
	Path      string `json:"path"`
	Protocol  string `json:"protocol"`
	SourceIP  string `json:"sourceIp"`
	UserAgent string `json:"userAgent"`
}

// request is what the event is made from besides the HTTP request itself.
type request struct {
	route     *route
	params    map[string]string
	body      []byte
	id        string
	traceRoot string
	accountID string
	received  time.Time
	iam       *iamCaller // the caller of an AWS_IAM route
}

func newHTTPEvent(r *http.Request, req request) httpEvent {
	sourceIP, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		sourceIP = r.RemoteAddr
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	ev := httpEvent{
		Version:        "2.0",
		RouteKey:       req.route.key,
		RawPath:        r.URL.EscapedPath(),
		RawQueryString: r.URL.RawQuery,
		Headers:        map[string]string{},
		PathParameters: req.params,
		RequestContext: requestContext{
			AccountID:    req.accountID,
			APIID:        "local",
			DomainName:   r.Host,
			DomainPrefix: strings.Split(host, ".")[0],
			HTTP: httpContext{
				Method:    r.Method,
				Path:      r.URL.EscapedPath(),
				Protocol:  r.Proto,
				SourceIP:  sourceIP,
				UserAgent: r.UserAgent(),
			},
			RequestID: req.id,
			RouteKey:  req.route.key,
			Stage:     "$default",
			Time:      req.received.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch: req.received.UnixMilli(),
		},
	}
	for k, vs := range r.Header {
		k = strings.ToLower(k)
		// HTTP API moves cookies out of the headers into their own list.
		if k == "cookie" {
			for _, v := range vs {
				ev.Cookies = append(ev.Cookies, splitCookies(v)...)
			}
			continue
		}
		ev.Headers[k] = strings.Join(vs, ",")
	}
	if req.iam != nil {
		ev.RequestContext.Authorizer = &authorizer{IAM: req.iam}
	}
	ev.Headers["host"] = r.Host
	// What HTTP API adds in front of every integration.
	ev.Headers["x-forwarded-for"] = sourceIP
	ev.Headers["x-forwarded-port"] = port
	ev.Headers["x-forwarded-proto"] = "http"
	ev.Headers["x-amzn-trace-id"] = req.traceRoot

	if q, _ := url.ParseQuery(r.URL.RawQuery); len(q) > 0 {
		ev.QueryStringParameters = make(map[string]string, len(q))
		for k, vs := range q {
			ev.QueryStringParameters[k] = strings.Join(vs, ",")
		}
	}
	if len(req.body) > 0 {
		if isText(r.Header.Get("Content-Type")) && utf8.Valid(req.body) {
			ev.Body = string(req.body)
		} else {
			ev.Body = base64.StdEncoding.EncodeToString(req.body)
			ev.IsBase64Encoded = true
		}
	}
	return ev
}

func splitCookies(header string) []string {
	var out []string
	for _, c := range strings.Split(header, ";") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// isText reports whether HTTP API passes a body of this content type as text; everything else,
// including a body without a content type, arrives base64-encoded.
func isText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-www-form-urlencoded":
		return true
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}
