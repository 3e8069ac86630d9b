package accounts

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// TokenPrefix starts every access token, so that a leaked one is recognizable in logs, secret
// scanners and support tickets, and a token of another system is refused before any lookup.
const TokenPrefix = "sa_at_"

// tokenBytes of crypto/rand make a token unguessable (256 bits), which is also why an unsalted,
// fast SHA-256 is enough to store it: there is nothing to brute-force.
const tokenBytes = 32

var (
	tokenEncoding = base64.RawURLEncoding
	tokenBodyLen  = tokenEncoding.EncodedLen(tokenBytes)
)

// The reasons ParseBearer refuses a header. All of them answer 401 UNAUTHORIZED; they are
// distinct for logs and tests.
var (
	ErrMissingAuthorization = errors.New("accounts: no Authorization header")
	ErrUnsupportedScheme    = errors.New("accounts: Authorization scheme is not Bearer")
	ErrMalformedToken       = errors.New("accounts: malformed bearer token")
)

// NewToken returns a new access token: TokenPrefix and 32 random bytes in unpadded base64url,
// which is safe in headers and URLs as it is. Only its HashToken is ever stored.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("accounts: reading random token: %w", err)
	}
	return TokenPrefix + tokenEncoding.EncodeToString(b), nil
}

// HashToken is the key a token is stored and looked up under (hex SHA-256), so a leak of the
// table gives no usable tokens.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ParseBearer extracts the token from an Authorization header value: "Bearer <token>", scheme in
// any case, one or more spaces before the token (RFC 9110 §11.4, RFC 6750 §2.1). The token must
// be exactly what NewToken makes, so garbage is refused here and never reaches the database.
func ParseBearer(header string) (string, error) {
	// Surrounding whitespace is not part of a field value (RFC 9110 §5.5).
	header = strings.Trim(header, " \t")
	if header == "" {
		return "", ErrMissingAuthorization
	}
	scheme, credentials, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrUnsupportedScheme
	}
	token := strings.TrimLeft(credentials, " ")
	if !isToken(token) {
		return "", ErrMalformedToken
	}
	return token, nil
}

// isToken reports whether s has the exact shape of a NewToken result. Re-encoding rules out
// the spellings the decoder tolerates (CR/LF, non-zero trailing bits), so each token has one.
func isToken(s string) bool {
	body, ok := strings.CutPrefix(s, TokenPrefix)
	if !ok || len(body) != tokenBodyLen {
		return false
	}
	b, err := tokenEncoding.DecodeString(body)
	return err == nil && tokenEncoding.EncodeToString(b) == body
}
