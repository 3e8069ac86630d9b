package provider

import "testing"

func TestSafeCode(t *testing.T) {
	cases := []struct {
		in   []string
		want string
	}{
		{[]string{"context_length_exceeded", "invalid_request_error"}, "context_length_exceeded"},
		{[]string{"", "server_error"}, "server_error"},
		{[]string{"Incorrect API key provided: sk-abc", ""}, ""},
	}
	for _, tc := range cases {
		if got := safeCode(tc.in...); got != tc.want {
			t.Errorf("safeCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
