package emulator

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

func TestHTTPIAMRoute(t *testing.T) {
	_, url, _ := startEmulator(t, Config{})

	r := send(t, http.MethodGet, url+"/signed", nil, nil)
	wantStatus(t, r, http.StatusForbidden, `{"message":"Forbidden"}`)
	r = send(t, http.MethodGet, url+"/signed", map[string]string{"Authorization": "Bearer token"}, nil)
	wantStatus(t, r, http.StatusForbidden, `{"message":"Forbidden"}`)

	req, err := http.NewRequest(http.MethodGet, url+"/signed", nil)
	if err != nil {
		t.Fatal(err)
	}
	creds := aws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "secret"}
	const emptyBodySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, emptyBodySHA256, "execute-api", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	ev := echoed(t, send(t, http.MethodGet, url+"/signed", map[string]string{
		"Authorization": req.Header.Get("Authorization"),
		"X-Amz-Date":    req.Header.Get("X-Amz-Date"),
	}, nil))
	if a := ev.RequestContext.Authorizer; a == nil || a.IAM == nil || a.IAM.AccessKey != "AKIDLOCAL" || a.IAM.AccountID != "000000000000" {
		t.Errorf("got requestContext.authorizer %+v, want iam with accessKey AKIDLOCAL and the account", a)
	}

	// Routes without Auth are open and carry no authorizer.
	if a := echoed(t, send(t, http.MethodGet, url+"/echo/1", nil, nil)).RequestContext.Authorizer; a != nil {
		t.Errorf("got requestContext.authorizer %+v on an open route, want none", a)
	}
}

func TestSigV4Caller(t *testing.T) {
	tests := []struct {
		name, header string
		wantKey      string // "" for refused
	}{
		{"signed", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc", "AKID"},
		{"empty", "", ""},
		{"bearer", "Bearer x", ""},
		{"no signature", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host", ""},
		{"short scope", "AWS4-HMAC-SHA256 Credential=AKID/20260101, SignedHeaders=host, Signature=abc", ""},
		{"no access key", "AWS4-HMAC-SHA256 Credential=/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature=abc", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := sigV4Caller(tt.header, "123456789012")
			switch {
			case tt.wantKey == "" && c != nil:
				t.Errorf("got caller %+v, want refused", c)
			case tt.wantKey != "" && (c == nil || c.AccessKey != tt.wantKey || c.AccountID != "123456789012"):
				t.Errorf("got caller %+v, want access key %s in account 123456789012", c, tt.wantKey)
			}
		})
	}
}
