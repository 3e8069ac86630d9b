package tracing

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-xray-sdk-go/header"
	"github.com/aws/smithy-go/middleware"
)

const (
	traceID  = "1-5759e988-bd862e3fe1be46a994272793"
	parentID = "53995c3f42cd8ad8"
)

// daemon is a UDP listener standing in for the X-Ray daemon.
type daemon struct {
	conn *net.UDPConn
}

func newDaemon(t *testing.T) (*daemon, *tracer) {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &daemon{conn: conn}, &tracer{addr: conn.LocalAddr().(*net.UDPAddr)}
}

// next returns the next datagram's subsegment, or false when none arrives soon.
func (d *daemon) next(t *testing.T, wait time.Duration) (subsegment, bool) {
	t.Helper()
	buf := make([]byte, 64<<10)
	d.conn.SetReadDeadline(time.Now().Add(wait))
	n, err := d.conn.Read(buf)
	if err != nil {
		return subsegment{}, false
	}
	doc, ok := strings.CutPrefix(string(buf[:n]), daemonPreamble)
	if !ok {
		t.Fatalf("datagram %q lacks the daemon preamble", buf[:n])
	}
	var s subsegment
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("datagram %q: %v", doc, err)
	}
	return s, true
}

func traced(sampled string) context.Context {
	return context.WithValue(context.Background(), lambdaTraceKey, "Root="+traceID+";Parent="+parentID+";Sampled="+sampled)
}

func dynamoClient(t *testing.T, tr *tracer, status int) (*dynamodb.Client, *[]string) {
	t.Helper()
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get(headerName))
		w.Header().Set("X-Amzn-RequestId", "REQ123")
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(status)
		if status >= 400 {
			w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"no table"}`))
			return
		}
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	cfg := aws.Config{
		Region:      "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""),
		APIOptions:  []func(*middleware.Stack) error{tr.addMiddleware},
	}
	c := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
		o.RetryMaxAttempts = 1
		o.DisableValidateResponseChecksum = true
	})
	return c, &seen
}

func getItem(ctx context.Context, c *dynamodb.Client) error {
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("Tasks"),
		Key:       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "x"}},
	})
	return err
}

func TestAWSCallsBecomeSubsegments(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		wantError  bool
		wantFault  bool
		wantStatus int
	}{
		{"success", http.StatusOK, false, false, 200},
		{"client error", http.StatusBadRequest, true, false, 400},
		{"server error", http.StatusInternalServerError, false, true, 500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, tr := newDaemon(t)
			c, seen := dynamoClient(t, tr, tc.status)
			err := getItem(traced("1"), c)
			if (err != nil) != (tc.status >= 400) {
				t.Fatalf("GetItem error = %v with status %d", err, tc.status)
			}
			s, ok := d.next(t, 2*time.Second)
			if !ok {
				t.Fatal("no subsegment reached the daemon")
			}
			if s.Name != "DynamoDB" || s.Namespace != "aws" || s.Type != "subsegment" || s.TraceID != traceID || s.ParentID != parentID {
				t.Errorf("got subsegment %+v, want DynamoDB/aws subsegment of %s under %s", s, traceID, parentID)
			}
			if s.AWS["operation"] != "GetItem" || s.AWS["region"] != "eu-west-1" || s.AWS["request_id"] != "REQ123" {
				t.Errorf("got aws %v, want operation GetItem, region eu-west-1, request_id REQ123", s.AWS)
			}
			if s.HTTP == nil || s.HTTP.Response == nil || s.HTTP.Response.Status != tc.wantStatus {
				t.Errorf("got http %+v, want status %d", s.HTTP, tc.wantStatus)
			}
			if s.Error != tc.wantError || s.Fault != tc.wantFault {
				t.Errorf("got error %v fault %v, want %v %v", s.Error, s.Fault, tc.wantError, tc.wantFault)
			}
			if s.EndTime < s.StartTime || s.StartTime == 0 || len(s.ID) != 16 {
				t.Errorf("got id %q, times %f..%f", s.ID, s.StartTime, s.EndTime)
			}
			want := "Root=" + traceID + ";Parent=" + s.ID + ";Sampled=1"
			if len(*seen) != 1 || (*seen)[0] != want {
				t.Errorf("DynamoDB got trace headers %q, want [%q]", *seen, want)
			}
		})
	}
}

func TestNothingIsSentUnlessSampled(t *testing.T) {
	for name, ctx := range map[string]context.Context{
		"no trace header": context.Background(),
		"not sampled":     traced("0"),
	} {
		t.Run(name, func(t *testing.T) {
			d, tr := newDaemon(t)
			c, seen := dynamoClient(t, tr, http.StatusOK)
			if err := getItem(ctx, c); err != nil {
				t.Fatal(err)
			}
			if s, ok := d.next(t, 200*time.Millisecond); ok {
				t.Errorf("got subsegment %+v, want none", s)
			}
			if len(*seen) != 1 || (*seen)[0] != "" {
				t.Errorf("DynamoDB got trace headers %q, want none", *seen)
			}
		})
	}
}

func TestHTTPRequestsBecomeRemoteSubsegments(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		wantError bool
		throttle  bool
		wantFault bool
	}{
		{"success", http.StatusOK, false, false, false},
		{"throttled", http.StatusTooManyRequests, true, true, false},
		{"unavailable", http.StatusServiceUnavailable, false, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Get(headerName)
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			d, tr := newDaemon(t)
			c := &http.Client{Transport: &transport{base: http.DefaultTransport, t: tr}}
			req, _ := http.NewRequestWithContext(traced("1"), http.MethodPost, srv.URL+"/v1/chat/completions?key=secret", nil)
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			s, ok := d.next(t, 2*time.Second)
			if !ok {
				t.Fatal("no subsegment reached the daemon")
			}
			if s.Name != "127.0.0.1" || s.Namespace != "remote" || s.ParentID != parentID {
				t.Errorf("got subsegment %+v, want a remote one named 127.0.0.1 under %s", s, parentID)
			}
			if s.HTTP.Request.URL != srv.URL+"/v1/chat/completions" || s.HTTP.Request.Method != http.MethodPost {
				t.Errorf("got request %+v, want POST without the query", s.HTTP.Request)
			}
			if s.HTTP.Response.Status != tc.status || s.Error != tc.wantError || s.Throttle != tc.throttle || s.Fault != tc.wantFault {
				t.Errorf("got %+v (error %v throttle %v fault %v), want status %d, %v %v %v",
					s.HTTP.Response, s.Error, s.Throttle, s.Fault, tc.status, tc.wantError, tc.throttle, tc.wantFault)
			}
			if h := header.FromString(got); h.ParentID != s.ID || h.TraceID != traceID {
				t.Errorf("server got trace header %q, want parent %s", got, s.ID)
			}
		})
	}
}

func TestUnansweredRequestIsAFault(t *testing.T) {
	d, tr := newDaemon(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c := &http.Client{Transport: &transport{base: http.DefaultTransport, t: tr}}
	req, _ := http.NewRequestWithContext(traced("1"), http.MethodGet, "http://"+addr+"/", nil)
	if _, err := c.Do(req); err == nil {
		t.Fatal("request to a closed port succeeded")
	}
	s, ok := d.next(t, 2*time.Second)
	if !ok || !s.Fault || s.HTTP.Response != nil {
		t.Errorf("got subsegment %+v (sent %v), want a fault without a response", s, ok)
	}
}

func TestHTTPClientKeepsTheClientsSettings(t *testing.T) {
	base := &http.Client{Timeout: 3 * time.Second}
	c := HTTPClient(base)
	if c == base || c.Timeout != 3*time.Second {
		t.Errorf("got %+v, want a copy keeping the timeout", c)
	}
	if _, ok := c.Transport.(*transport); !ok || base.Transport != nil {
		t.Errorf("got transport %T (original %T), want the copy traced and the original untouched", c.Transport, base.Transport)
	}
}
