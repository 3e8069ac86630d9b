package actions

import "testing"

func TestSecretCall(t *testing.T) {
	for _, tc := range []struct {
		in, want, secret string
		ok               bool
	}{
		{`setValue(5, secret("crm_password"))`, `setValue(5, secret("crm_password"))`, "crm_password", true},
		{` setValue( 12 ,secret( "pin.v2" ) ) `, `setValue(12, secret("pin.v2"))`, "pin.v2", true},
		{`setValue(5, "secret(\"x\")")`, `setValue(5, "secret(\"x\")")`, "", true},
		{`click(secret("x"))`, "", "", false},
		{`setValue(5, secret("has space"))`, "", "", false},
		{`setValue(05, secret("x"))`, "", "", false},
	} {
		a, err := Parse(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("Parse(%q) error = %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		name, _ := a.Secret()
		if a.String() != tc.want || name != tc.secret {
			t.Errorf("Parse(%q) = %s (secret %q), want %s (secret %q)", tc.in, a, name, tc.want, tc.secret)
		}
		if again, err := Parse(a.String()); err != nil || again.String() != a.String() {
			t.Errorf("Parse(%q) = %v, %v; want it to read back", a.String(), again, err)
		}
		if text, ok := a.Text(); tc.secret != "" && ok {
			t.Errorf("a secret call has the text %q, want none (the value is the client's)", text)
		}
	}
}
