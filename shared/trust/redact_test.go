package trust

import (
	"errors"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	var s Secrets
	s.Remember("hunter2!")
	s.Remember("Пароль123")
	s.Remember("abc") // too short to redact echoes of
	for _, tc := range []struct{ in, want string }{
		{`Could not type "hunter2!" into the field`, `Could not type "` + Mask + `" into the field`},
		{"hunter2!hunter2!", Mask + Mask},
		{"x Пароль123 y", "x " + Mask + " y"},
		{"abc and hunter2", "abc and hunter2"},
		{"", ""},
	} {
		if got := s.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := len(s.Typed); got != 2 {
		t.Errorf("%d typed secrets kept, want 2 (the short one is not)", got)
	}
	if s.Remember("hunter2!") {
		t.Errorf("Remember of a known secret reported it new, want false")
	}
}

func TestRedactWithoutSecretsChangesNothing(t *testing.T) {
	var s *Secrets
	if got := s.Redact("hunter2"); got != "hunter2" {
		t.Errorf("nil Secrets redacted %q, want the text unchanged", got)
	}
}

// TestWithRedactsExtraValuesOnly: a copy made With values redacts them and the remembered
// secrets, and the original learns nothing.
func TestWithRedactsExtraValuesOnly(t *testing.T) {
	var s Secrets
	s.Remember("typed-one")
	local := s.With("never-typed", "ab")
	if got, want := local.Redact("typed-one never-typed ab"), Mask+" "+Mask+" ab"; got != want {
		t.Errorf("With(...).Redact = %q, want %q", got, want)
	}
	if got := s.Redact("never-typed"); got != "never-typed" {
		t.Errorf("the original redacts %q, want it unchanged (With must not remember into it)", got)
	}
	var none *Secrets
	if got := none.With("never-typed").Redact("x never-typed"); got != "x "+Mask {
		t.Errorf("nil.With(...).Redact = %q, want the value masked", got)
	}
}

// FuzzSecretText checks that a remembered secret never survives redaction, wherever it stands
// in the text.
func FuzzSecretText(f *testing.F) {
	f.Add("hunter22", "before ", " after")
	f.Add("ñandú€€", "€", "ñ")
	f.Add("aaaa", "aaa", "a")
	f.Fuzz(func(t *testing.T, secret, before, after string) {
		var s Secrets
		if !s.Remember(secret) {
			return
		}
		text := before + secret + after
		if got := s.Redact(text); strings.Contains(got, secret) && !strings.Contains(Mask, secret) {
			t.Fatalf("Redact(%q) = %q, still holds the secret %q", text, got, secret)
		}
	})
}

func TestParseSecretNames(t *testing.T) {
	got, err := ParseSecretNames("secretNames", []string{"crm_password", "pin@https://Bank.example:8443", "otp@crm.example.com/"})
	if err != nil {
		t.Fatalf("ParseSecretNames: %v", err)
	}
	want := []NamedSecret{{Name: "crm_password"}, {Name: "pin", Origin: "bank.example:8443"}, {Name: "otp", Origin: "crm.example.com"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range [][]string{{""}, {"has space"}, {"a", "a"}, {"x@"}, {"x@https://h/path"}, {"x@user:pw@host"}} {
		if _, err := ParseSecretNames("secretNames", bad); err == nil {
			t.Errorf("ParseSecretNames(%q) = nil error, want a validation error", bad)
		}
	}
}

func TestCheckSecretUse(t *testing.T) {
	held := []NamedSecret{{Name: "crm_password", Origin: "crm.example.com"}, {Name: "note"}}
	for _, tc := range []struct {
		name, url string
		want      error
	}{
		{"crm_password", "https://crm.example.com/login", nil},
		{"crm_password", "https://CRM.example.com:443/login", nil},
		{"crm_password", "https://crm.example.com:8443/login", ErrSecretOrigin},
		{"crm_password", "https://evil.test/crm.example.com", ErrSecretOrigin},
		{"crm_password", "https://crm.example.com.evil.test/", ErrSecretOrigin},
		{"note", "https://anywhere.test/", nil},
		{"bank_pin", "https://crm.example.com/", ErrUnknownSecret},
	} {
		if err := CheckSecretUse(held, tc.name, tc.url); !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Errorf("CheckSecretUse(%q, %q) = %v, want %v", tc.name, tc.url, err, tc.want)
		}
	}
}

func TestMaskNoteExplainsTheMaskOnlyWhereItStands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prompt string
		want   bool
	}{
		{`Step 1: setValue(4, "` + Mask + `")`, true},
		{`Step 1: click(4)`, false},
	} {
		if got := MaskNote(tc.prompt); (got != "") != tc.want || tc.want && !strings.Contains(got, "secret value") {
			t.Errorf("MaskNote(%q) = %q, want a note: %v", tc.prompt, got, tc.want)
		}
	}
}
