package trustdb

import (
	"reflect"
	"testing"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/trust"
)

func TestSecretsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   trust.Secrets
	}{
		{"none", trust.Secrets{}},
		{"a key only", trust.Secrets{Key: []byte("k")}},
		{"typed", trust.Secrets{Key: []byte("k"), Typed: []trust.Typed{{Sum: "a", Len: 4}, {Sum: "b", Len: 12}}}},
	}
	for _, tc := range tests {
		if got := dynamotest.RoundTrip(t, FromSecrets(tc.in)).Secrets(); !reflect.DeepEqual(got, tc.in) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.in)
		}
	}
}

func TestNamesRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   []trust.NamedSecret
	}{
		{"none", nil},
		{"any origin", []trust.NamedSecret{{Name: "pin"}}},
		{"bound", []trust.NamedSecret{{Name: "crm_password", Origin: "crm.example.com"}, {Name: "otp", Origin: "bank.example:8443"}}},
	}
	for _, tc := range tests {
		if got := Names(dynamotest.RoundTrip(t, FromNames(tc.in))); !reflect.DeepEqual(got, tc.in) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.in)
		}
	}
}
