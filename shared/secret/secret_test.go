package secret

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// fakeGetter serves one secret value.
type fakeGetter struct {
	value *string
	err   error
}

func (f fakeGetter) GetSecretValue(_ context.Context, _ *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: f.value}, nil
}

func ptr(s string) *string { return &s }

func TestReadKey(t *testing.T) {
	const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:key"
	cases := []struct {
		name       string
		getter     fakeGetter
		want       string
		wantErrHas string
	}{
		{"plain string, trimmed", fakeGetter{value: ptr(" tvly-plain\n")}, "tvly-plain", ""},
		{"JSON apiKey", fakeGetter{value: ptr(`{"apiKey": "tvly-json", "note": "x"}`)}, "tvly-json", ""},
		{"JSON without apiKey", fakeGetter{value: ptr(`{"key": "tvly-hidden"}`)}, "", "is empty"},
		{"malformed JSON", fakeGetter{value: ptr(`{"apiKey": "tvly-hidden"`)}, "", "not valid JSON"},
		{"binary secret", fakeGetter{}, "", "no string value"},
		{"blank", fakeGetter{value: ptr("  ")}, "", "is empty"},
		{"read fails", fakeGetter{err: errors.New("AccessDeniedException")}, "", "read secret " + arn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadKey(context.Background(), tc.getter, arn)
			if tc.wantErrHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrHas) {
					t.Fatalf("ReadKey() error = %v, want it to contain %q", err, tc.wantErrHas)
				}
				if strings.Contains(err.Error(), "tvly-hidden") {
					t.Errorf("error %q reveals the secret", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ReadKey() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
