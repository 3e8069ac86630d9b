package accounts

import (
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"
)

var (
	tokenPattern   = regexp.MustCompile(`^sa_at_[A-Za-z0-9_-]{43}$`)
	tokenHashRegex = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// A fixed, valid token for tables: 32 bytes 0x00..0x1f.
var sampleToken = func() string {
	b := make([]byte, tokenBytes)
	for i := range b {
		b[i] = byte(i)
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}()

func TestNewToken(t *testing.T) {
	const n = 1000
	seen := make(map[string]bool, n)
	for range n {
		tok, err := NewToken()
		if err != nil {
			t.Fatalf("NewToken: got error %v, want nil", err)
		}
		if !tokenPattern.MatchString(tok) {
			t.Fatalf("NewToken = %q, want a match for %s", tok, tokenPattern)
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, TokenPrefix))
		if err != nil || len(raw) != tokenBytes {
			t.Fatalf("NewToken = %q: body decodes to %d bytes (err %v), want %d", tok, len(raw), err, tokenBytes)
		}
		if seen[tok] {
			t.Fatalf("NewToken returned %q twice in %d calls", tok, n)
		}
		seen[tok] = true
		if got, err := ParseBearer("Bearer " + tok); err != nil || got != tok {
			t.Fatalf("ParseBearer(Bearer %s) = (%q, %v), want the token back", tok, got, err)
		}
	}
}

func TestHashToken(t *testing.T) {
	// sha256("") and sha256("abc") from FIPS 180-2, and the shape for a real token.
	tests := []struct {
		in, want string
	}{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		if got := HashToken(tt.in); got != tt.want {
			t.Errorf("HashToken(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	tok, err := NewToken()
	if err != nil {
		t.Fatalf("NewToken: %v", err)
	}
	h := HashToken(tok)
	if !tokenHashRegex.MatchString(h) {
		t.Errorf("HashToken(token) = %q, want 64 lower-case hex digits", h)
	}
	if h != HashToken(tok) {
		t.Errorf("HashToken is not deterministic")
	}
	if other, _ := NewToken(); HashToken(other) == h {
		t.Errorf("two tokens hash to the same %q", h)
	}
}

func TestParseBearer(t *testing.T) {
	tok := sampleToken
	body := strings.TrimPrefix(tok, TokenPrefix)
	tests := []struct {
		name    string
		header  string
		wantErr error // nil when the header is accepted and yields tok
	}{
		{"canonical", "Bearer " + tok, nil},
		{"lower-case scheme", "bearer " + tok, nil},
		{"upper-case scheme", "BEARER " + tok, nil},
		{"mixed-case scheme", "bEaReR " + tok, nil},
		{"several spaces", "Bearer    " + tok, nil},
		{"surrounding whitespace", " \tBearer " + tok + " \t", nil},

		{"empty", "", ErrMissingAuthorization},
		{"only whitespace", "  \t ", ErrMissingAuthorization},

		{"basic scheme", "Basic dXNlcjpwYXNz", ErrUnsupportedScheme},
		{"token without scheme", tok, ErrUnsupportedScheme},
		{"scheme with typo", "Baerer " + tok, ErrUnsupportedScheme},
		{"scheme glued to token", "Bearer" + tok, ErrUnsupportedScheme},
		{"tab as separator", "Bearer\t" + tok, ErrUnsupportedScheme},
		{"non-ASCII scheme", "Bеarer " + tok, ErrUnsupportedScheme}, // Cyrillic е
		{"scheme with colon", "Bearer: " + tok, ErrUnsupportedScheme},

		{"scheme only", "Bearer", ErrMalformedToken},
		{"scheme and spaces", "Bearer   ", ErrMalformedToken},
		{"extra part", "Bearer " + tok + " extra", ErrMalformedToken},
		{"two tokens", "Bearer " + tok + " " + tok, ErrMalformedToken},
		{"token, comma, param", "Bearer " + tok + ",realm=x", ErrMalformedToken},
		{"tab inside", "Bearer " + tok[:10] + "\t" + tok[10:], ErrMalformedToken},
		{"newline inside", "Bearer " + tok[:10] + "\n" + tok[10:], ErrMalformedToken},
		{"quoted", `Bearer "` + tok + `"`, ErrMalformedToken},
		{"no prefix", "Bearer " + body, ErrMalformedToken},
		{"other prefix", "Bearer sa_rt_" + body, ErrMalformedToken},
		{"prefix in upper case", "Bearer SA_AT_" + body, ErrMalformedToken},
		{"prefix only", "Bearer " + TokenPrefix, ErrMalformedToken},
		{"one character short", "Bearer " + tok[:len(tok)-1], ErrMalformedToken},
		{"one character long", "Bearer " + tok + "A", ErrMalformedToken},
		{"padded", "Bearer " + tok + "=", ErrMalformedToken},
		{"standard base64 alphabet", "Bearer " + TokenPrefix + "+" + body[1:], ErrMalformedToken},
		{"slash", "Bearer " + TokenPrefix + "/" + body[1:], ErrMalformedToken},
		{"dot", "Bearer " + TokenPrefix + "." + body[1:], ErrMalformedToken},
		{"non-ASCII", "Bearer " + TokenPrefix + "é" + body[2:], ErrMalformedToken},
		{"NUL", "Bearer " + TokenPrefix + "\x00" + body[1:], ErrMalformedToken},
		{"non-canonical trailing bits", "Bearer " + tok[:len(tok)-1] + "9", ErrMalformedToken},
		{"JWT", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", ErrMalformedToken},
		{"SQL", "Bearer ' OR 1=1 --", ErrMalformedToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBearer(tt.header)
			if tt.wantErr == nil {
				if err != nil || got != tok {
					t.Errorf("ParseBearer(%q) = (%q, %v), want (%q, nil)", tt.header, got, err, tok)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || got != "" {
				t.Errorf("ParseBearer(%q) = (%q, %v), want (\"\", %v)", tt.header, got, err, tt.wantErr)
			}
		})
	}
}

// FuzzParseBearer checks that no header makes the parser panic, that every error is one of its
// sentinels, and that whatever it accepts is a well-formed token that was in the header and
// parses back to itself.
func FuzzParseBearer(f *testing.F) {
	for _, seed := range []string{
		"",
		" ",
		"Bearer",
		"Bearer ",
		"Bearer " + sampleToken,
		"bearer   " + sampleToken + " ",
		"BEARER " + sampleToken + " x",
		"Basic dXNlcjpwYXNz",
		"Bearer " + sampleToken[:len(sampleToken)-1] + "9",
		"Bearer " + sampleToken + "=",
		"Bearer\t" + sampleToken,
		"Bearer " + strings.TrimPrefix(sampleToken, TokenPrefix),
		"Bearer sa_at_\r\n" + strings.TrimPrefix(sampleToken, TokenPrefix),
		"Bearer é" + sampleToken,
		"\xff\xfe",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, err := ParseBearer(header)
		if err != nil {
			if tok != "" {
				t.Errorf("ParseBearer(%q) returned %q with error %v, want \"\"", header, tok, err)
			}
			if !errors.Is(err, ErrMissingAuthorization) && !errors.Is(err, ErrUnsupportedScheme) && !errors.Is(err, ErrMalformedToken) {
				t.Errorf("ParseBearer(%q): error %v is none of the sentinels", header, err)
			}
			return
		}
		if !tokenPattern.MatchString(tok) {
			t.Fatalf("ParseBearer(%q) accepted %q, which does not match %s", header, tok, tokenPattern)
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, TokenPrefix))
		if err != nil || len(raw) != tokenBytes {
			t.Fatalf("ParseBearer(%q) accepted %q, whose body is not %d bytes of base64url", header, tok, tokenBytes)
		}
		if TokenPrefix+base64.RawURLEncoding.EncodeToString(raw) != tok {
			t.Fatalf("ParseBearer(%q) accepted non-canonical %q", header, tok)
		}
		trimmed := strings.Trim(header, " \t")
		if !strings.HasSuffix(trimmed, " "+tok) || !strings.EqualFold(trimmed[:len("Bearer")], "Bearer") {
			t.Fatalf("ParseBearer(%q) = %q, which is not the header's token", header, tok)
		}
		if again, err := ParseBearer("Bearer " + tok); err != nil || again != tok {
			t.Fatalf("ParseBearer(Bearer %s) = (%q, %v), want the token back", tok, again, err)
		}
	})
}
