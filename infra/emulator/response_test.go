package emulator

import (
	"net/http"
	"slices"
	"testing"
)

func TestDecodeResponse(t *testing.T) {
	tests := []struct {
		name       string
		out        string
		wantStatus int
		wantHeader http.Header
		wantBody   string
	}{
		{
			name:       "structured",
			out:        `{"statusCode":201,"headers":{"content-type":"text/plain","x-one":"1"},"multiValueHeaders":{"X-Many":["a","b"]},"cookies":["a=1","b=2; Path=/"],"body":"created"}`,
			wantStatus: 201,
			wantHeader: http.Header{"Content-Type": {"text/plain"}, "X-One": {"1"}, "X-Many": {"a", "b"}, "Set-Cookie": {"a=1", "b=2; Path=/"}},
			wantBody:   "created",
		},
		{
			name:       "base64 body",
			out:        `{"statusCode":200,"body":"AAH/","isBase64Encoded":true}`,
			wantStatus: 200,
			wantHeader: http.Header{},
			wantBody:   "\x00\x01\xff",
		},
		{
			name:       "object without statusCode",
			out:        `{"hello":"world"}`,
			wantStatus: 200,
			wantHeader: http.Header{"Content-Type": {"application/json"}},
			wantBody:   `{"hello":"world"}`,
		},
		{
			name:       "string",
			out:        `"hi"`,
			wantStatus: 200,
			wantHeader: http.Header{"Content-Type": {"application/json"}},
			wantBody:   `"hi"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := decodeResponse([]byte(tt.out))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if res.status != tt.wantStatus {
				t.Errorf("got status %d, want %d", res.status, tt.wantStatus)
			}
			for k, want := range tt.wantHeader {
				if got := res.header.Values(k); !slices.Equal(got, want) {
					t.Errorf("got header %s %q, want %q", k, got, want)
				}
			}
			if len(res.header) != len(tt.wantHeader) {
				t.Errorf("got headers %v, want %v", res.header, tt.wantHeader)
			}
			if string(res.body) != tt.wantBody {
				t.Errorf("got body %q, want %q", res.body, tt.wantBody)
			}
		})
	}
}

func TestDecodeResponseInvalid(t *testing.T) {
	for _, out := range []string{
		`not json`,
		`{"statusCode":"200"}`,
		`{"statusCode":0}`,
		`{"statusCode":200,"body":"***","isBase64Encoded":true}`,
	} {
		if _, err := decodeResponse([]byte(out)); err == nil {
			t.Errorf("%s: got no error, want one", out)
		}
	}
}
