package apigw

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/screenagent/backend/shared/realtime"
)

func TestPost(t *testing.T) {
	var gotPath, gotAuth, gotBody string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotPath, gotAuth, gotBody = r.URL.EscapedPath(), r.Header.Get("Authorization"), string(b)
		w.WriteHeader(status)
	}))
	defer srv.Close()
	c := New(aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}, srv.URL+"/dev/")

	if err := c.Post(context.Background(), "L0SM9cOFvHcCIhw=", []byte(`{"type":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if gotPath != "/dev/@connections/L0SM9cOFvHcCIhw=" || gotBody != `{"type":"x"}` {
		t.Errorf("posted %s %s, want the connection's path under the stage and the data", gotPath, gotBody)
	}
	if !strings.HasPrefix(gotAuth, "AWS4-HMAC-SHA256 Credential=AKID/") || !strings.Contains(gotAuth, "/eu-west-1/execute-api/aws4_request") {
		t.Errorf("Authorization = %q, want a SigV4 signature for execute-api in the region", gotAuth)
	}
	for _, tc := range []struct {
		status int
		want   error
	}{{http.StatusGone, realtime.ErrGone}, {http.StatusTooManyRequests, realtime.ErrThrottled}} {
		status = tc.status
		if err := c.Post(context.Background(), "c", nil); !errors.Is(err, tc.want) {
			t.Errorf("status %d: got %v, want %v", tc.status, err, tc.want)
		}
	}
	status = http.StatusForbidden
	if err := c.Post(context.Background(), "c", nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("status 403: got %v, want an error naming it", err)
	}
}
