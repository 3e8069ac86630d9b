package accounts

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// Vectors made with the reference implementation (Debian's argon2 CLI), so the PHC format and
// the key derivation are checked against code other than ours:
//
//	echo -n "$pw" | argon2 "$salt" -id -t "$t" -k "$m" -p "$p" -l "$len" -e
const (
	refPassword = "correct horse battery staple"
	// The current parameters.
	refCurrent = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQwMTIzNDU2Nw$TCGkyEIb1oP5PkskxJEooy8qzHEScFQZam0/hwasFDQ"
	// Older, different parameters: 8 MiB, 3 passes, 2 lanes.
	refOld = "$argon2id$v=19$m=8192,t=3,p=2$c29tZXNhbHQwMTIzNDU2Nw$qzzGGcPOo2+L1Z3hmNHAHkeGjbaRuyG0TUPbHLpcg4Y"
	// A non-ASCII password and a 16-byte key.
	refUnicodePassword = "pässwörd-ünïcode"
	refUnicode         = "$argon2id$v=19$m=4096,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$2E1BnNRm4TbKfWDUvm0rpw"
)

var phcPattern = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func TestHashPasswordFormat(t *testing.T) {
	const password = "a long enough password"
	first, err := HashPassword(password)
	if err != nil {
		t.Fatalf("HashPassword: got error %v, want nil", err)
	}
	if !phcPattern.MatchString(first) {
		t.Errorf("HashPassword = %q, want a PHC string matching %s", first, phcPattern)
	}
	h, err := parsePHC(first)
	if err != nil {
		t.Fatalf("parsePHC(own hash): got error %v, want nil", err)
	}
	if h.params != currentParams {
		t.Errorf("parameters: got %+v, want %+v", h.params, currentParams)
	}
	if NeedsRehash(first) {
		t.Errorf("NeedsRehash(fresh hash) = true, want false")
	}
	second, err := HashPassword(password)
	if err != nil {
		t.Fatalf("HashPassword: got error %v, want nil", err)
	}
	if first == second {
		t.Errorf("two hashes of one password are equal (%q), want distinct salts", first)
	}
}

func TestHashPasswordAppliesPolicy(t *testing.T) {
	for _, pw := range []string{"", "short", strings.Repeat("x", maxPasswordLength+1), "\xff\xfe long enough"} {
		got, err := HashPassword(pw)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "password" {
			t.Errorf("HashPassword(%q): got (%q, %v), want a password ValidationError", pw, got, err)
		}
	}
}

func TestVerifyPassword(t *testing.T) {
	own, err := HashPassword(refPassword)
	if err != nil {
		t.Fatalf("HashPassword: %v", err)
	}
	tests := []struct {
		name     string
		encoded  string
		password string
		want     bool
	}{
		{"own hash, right password", own, refPassword, true},
		{"own hash, wrong password", own, "correct horse battery stapler", false},
		{"own hash, different case", own, strings.ToUpper(refPassword), false},
		{"own hash, empty password", own, "", false},
		{"reference current, right", refCurrent, refPassword, true},
		{"reference current, wrong", refCurrent, "Correct horse battery staple", false},
		{"reference old parameters, right", refOld, refPassword, true},
		{"reference old parameters, wrong", refOld, refPassword + " ", false},
		{"reference unicode, right", refUnicode, refUnicodePassword, true},
		{"reference unicode, decomposed form is another password", refUnicode, "pa\u0308sswörd-ünïcode", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := VerifyPassword(tt.encoded, tt.password)
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNeedsRehash(t *testing.T) {
	tests := []struct {
		name    string
		encoded string
		want    bool
	}{
		{"current parameters", refCurrent, false},
		{"older parameters", refOld, true},
		{"shorter key", refUnicode, true},
		{"malformed", "$argon2id$v=19$m=19456,t=2,p=1$", true},
		{"bcrypt", "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW", true},
		{"dummy", dummyHash, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsRehash(tt.encoded); got != tt.want {
				t.Errorf("NeedsRehash(%q) = %v, want %v", tt.encoded, got, tt.want)
			}
		})
	}
}

func TestVerifyPasswordMalformed(t *testing.T) {
	const (
		salt = "c29tZXNhbHQwMTIzNDU2Nw"
		key  = "TCGkyEIb1oP5PkskxJEooy8qzHEScFQZam0/hwasFDQ"
	)
	phc := func(head, params, salt, key string) string {
		return "$" + head + "$" + params + "$" + salt + "$" + key
	}
	tests := []struct {
		name    string
		encoded string
	}{
		{"empty", ""},
		{"plain text", "hunter22"},
		{"no leading dollar", strings.TrimPrefix(refCurrent, "$")},
		{"trailing dollar", refCurrent + "$"},
		{"missing key", "$argon2id$v=19$m=19456,t=2,p=1$" + salt},
		{"argon2i", phc("argon2i$v=19", "m=19456,t=2,p=1", salt, key)},
		{"argon2d", phc("argon2d$v=19", "m=19456,t=2,p=1", salt, key)},
		{"bcrypt", "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW"},
		{"version 16", phc("argon2id$v=16", "m=19456,t=2,p=1", salt, key)},
		{"version missing", "$argon2id$m=19456,t=2,p=1$" + salt + "$" + key},
		{"version leading zero", phc("argon2id$v=019", "m=19456,t=2,p=1", salt, key)},
		{"parameters out of order", phc("argon2id$v=19", "t=2,m=19456,p=1", salt, key)},
		{"parameter missing", phc("argon2id$v=19", "m=19456,t=2", salt, key)},
		{"extra parameter", phc("argon2id$v=19", "m=19456,t=2,p=1,keyid=1", salt, key)},
		{"parameter with spaces", phc("argon2id$v=19", "m=19456, t=2, p=1", salt, key)},
		{"parameter with sign", phc("argon2id$v=19", "m=+19456,t=2,p=1", salt, key)},
		{"parameter negative", phc("argon2id$v=19", "m=19456,t=-2,p=1", salt, key)},
		{"parameter leading zero", phc("argon2id$v=19", "m=019456,t=2,p=1", salt, key)},
		{"parameter not a number", phc("argon2id$v=19", "m=lots,t=2,p=1", salt, key)},
		{"parameter overflows uint32", phc("argon2id$v=19", "m=4294967296,t=2,p=1", salt, key)},
		{"memory absurd", phc("argon2id$v=19", "m=4194304,t=2,p=1", salt, key)},
		{"memory just over bound", phc("argon2id$v=19", "m=65537,t=2,p=1", salt, key)},
		{"memory below 8 per lane", phc("argon2id$v=19", "m=15,t=2,p=2", salt, key)},
		{"time zero", phc("argon2id$v=19", "m=19456,t=0,p=1", salt, key)},
		{"time absurd", phc("argon2id$v=19", "m=19456,t=1000000,p=1", salt, key)},
		{"threads zero", phc("argon2id$v=19", "m=19456,t=2,p=0", salt, key)},
		{"threads absurd", phc("argon2id$v=19", "m=19456,t=2,p=255", salt, key)},
		{"salt padded", phc("argon2id$v=19", "m=19456,t=2,p=1", salt+"==", key)},
		{"key base64url", phc("argon2id$v=19", "m=19456,t=2,p=1", salt, strings.ReplaceAll(key, "/", "_"))},
		{"salt with newline", phc("argon2id$v=19", "m=19456,t=2,p=1", salt[:10]+"\n"+salt[10:], key)},
		{"key non-canonical trailing bits", phc("argon2id$v=19", "m=19456,t=2,p=1", salt, key[:42]+"R")},
		{"salt too short", phc("argon2id$v=19", "m=19456,t=2,p=1", "c2FsdA", key)},
		{"salt empty", phc("argon2id$v=19", "m=19456,t=2,p=1", "", key)},
		{"key too short", phc("argon2id$v=19", "m=19456,t=2,p=1", salt, "TCGkyEIb1oP5Pksk")},
		{"key too long", phc("argon2id$v=19", "m=19456,t=2,p=1", salt, strings.Repeat("A", 88))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := VerifyPassword(tt.encoded, refPassword)
			if !errors.Is(err, ErrMalformedHash) {
				t.Errorf("VerifyPassword(%q): got error %v, want ErrMalformedHash", tt.encoded, err)
			}
			if got {
				t.Errorf("VerifyPassword(%q): got true, want false", tt.encoded)
			}
			if !NeedsRehash(tt.encoded) {
				t.Errorf("NeedsRehash(%q) = false, want true", tt.encoded)
			}
		})
	}
}

func TestHashAtBoundsVerifies(t *testing.T) {
	// The largest hash the bounds allow still verifies, so the bounds don't lock out a user
	// whose hash was made at them.
	h := phcHash{
		params: argon2Params{memoryKiB: maxMemoryKiB, time: 1, threads: maxThreads, saltLen: maxSaltLen, keyLen: maxKeyLen},
		salt:   make([]byte, maxSaltLen),
		key:    make([]byte, maxKeyLen),
	}
	encoded := encodePHC(h.params, h.salt, h.key)
	got, err := VerifyPassword(encoded, refPassword)
	if err != nil || got {
		t.Errorf("VerifyPassword(at bounds) = (%v, %v), want (false, nil)", got, err)
	}
}

func TestVerifyDummy(t *testing.T) {
	// Timing is measured by the benchmarks, never asserted here; what is checked is that the
	// dummy does a full verification with the current parameters.
	h, err := parsePHC(dummyHash)
	if err != nil {
		t.Fatalf("parsePHC(dummyHash): got error %v, want nil", err)
	}
	if h.params != currentParams {
		t.Errorf("dummy parameters: got %+v, want %+v", h.params, currentParams)
	}
	for _, pw := range []string{"", refPassword, strings.Repeat("é", maxPasswordLength)} {
		VerifyDummy(pw)
		if ok, err := VerifyPassword(dummyHash, pw); ok || err != nil {
			t.Errorf("VerifyPassword(dummyHash, %q) = (%v, %v), want (false, nil)", pw, ok, err)
		}
	}
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		name     string
		password string
		reason   string // empty when the password is accepted
	}{
		{"empty", "", "must be at least 8 characters"},
		{"7 ASCII", "abcdefg", "must be at least 8 characters"},
		{"8 ASCII", "abcdefgh", ""},
		{"7 two-byte code points (14 bytes)", strings.Repeat("é", 7), "must be at least 8 characters"},
		{"8 two-byte code points", strings.Repeat("é", 8), ""},
		{"7 four-byte code points (28 bytes)", strings.Repeat("🔑", 7), "must be at least 8 characters"},
		{"8 four-byte code points", strings.Repeat("🔑", 8), ""},
		{"7 code points: e and combining accent count apart", "e\u0301e\u0301e\u0301e", "must be at least 8 characters"},
		{"only digits", "12345678", ""},
		{"only spaces", "        ", ""},
		{"64 characters", strings.Repeat("p", 64), ""},
		{"256 characters", strings.Repeat("p", 256), ""},
		{"256 four-byte code points", strings.Repeat("🔑", 256), ""},
		{"257 characters", strings.Repeat("p", 257), "must be at most 256 characters"},
		{"257 two-byte code points", strings.Repeat("é", 257), "must be at most 256 characters"},
		{"invalid UTF-8", "abcdefgh\xff", "must be valid UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidatePassword(tt.password)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("got error %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got error %v, want a *ValidationError", err)
			}
			if ve.Field != "password" || ve.Reason != tt.reason {
				t.Errorf("got {%q, %q}, want {%q, %q}", ve.Field, ve.Reason, "password", tt.reason)
			}
		})
	}
}

func TestPasswordNotTruncated(t *testing.T) {
	// bcrypt famously ignores everything after 72 bytes; argon2id must not.
	base := strings.Repeat("0123456789", 10)
	a, b := base+"-tail-a", base+"-tail-b"
	encoded, err := HashPassword(a)
	if err != nil {
		t.Fatalf("HashPassword: %v", err)
	}
	for _, tt := range []struct {
		password string
		want     bool
	}{{a, true}, {b, false}, {base, false}} {
		got, err := VerifyPassword(encoded, tt.password)
		if err != nil || got != tt.want {
			t.Errorf("VerifyPassword(hash of %d chars, %d-char password ending %q) = (%v, %v), want (%v, nil)",
				len(a), len(tt.password), tt.password[len(tt.password)-7:], got, err, tt.want)
		}
	}
}
