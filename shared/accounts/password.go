package accounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password policy after NIST SP 800-63B §3.1.1.2: length is the only rule. No composition rules
// (they push users to predictable patterns) and no truncation (every character counts).
// Characters are Unicode code points, as NIST asks, so "pässwörd" is 8 characters, not 10 bytes.
const (
	minPasswordLength = 8
	// maxPasswordLength bounds the input that an unauthenticated client can make us hash on
	// signup and login. 256 is four times NIST's "at least 64" and longer than any password
	// manager generates, so no real passphrase is refused.
	maxPasswordLength = 256
)

// ErrMalformedHash is returned for a stored hash that is not an argon2id PHC string this package
// can verify, including one whose parameters are out of bounds. It means corrupt data, not a
// wrong password: callers answer 500, never 401.
var ErrMalformedHash = errors.New("accounts: malformed password hash")

type argon2Params struct {
	memoryKiB uint32
	time      uint32
	threads   uint8
	saltLen   int
	keyLen    int
}

// currentParams are those of new hashes: OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane),
// about 30 ms on one core, cheap enough per login on Lambda and costly per offline guess.
// Changing them is safe: stored hashes carry their own parameters, still verify, and
// NeedsRehash reports them so they are upgraded at the next successful login.
var currentParams = argon2Params{memoryKiB: 19456, time: 2, threads: 1, saltLen: 16, keyLen: 32}

// Bounds on what a stored hash may ask for. A hash is data: a corrupt or planted one must not
// make a login allocate gigabytes or spin for minutes. The upper bounds leave room for stronger
// settings (RFC 9106's 64 MiB, t=3); the lower ones are argon2's own minimums, which the
// library would otherwise enforce by panicking, and a key too short to resist collisions.
const (
	maxMemoryKiB = 64 * 1024
	maxTime      = 10
	maxThreads   = 4
	minSaltLen   = 8
	maxSaltLen   = 64
	minKeyLen    = 16
	maxKeyLen    = 64
)

// phcEncoding is the PHC string format's base64: standard alphabet, no padding.
var phcEncoding = base64.RawStdEncoding

// dummyHash has the current parameters, so verifying against it costs what verifying a
// current user's hash costs. Its salt and key are zeros rather than the hash of some password
// because only the work matters: it is free to build, adds nothing to a cold start, and no
// password is known to match it.
var dummyHash = encodePHC(currentParams, make([]byte, currentParams.saltLen), make([]byte, currentParams.keyLen))

// ValidatePassword applies the password policy to a new password. It does not apply to login
// attempts, which are just compared.
func ValidatePassword(password string) error {
	if !utf8.ValidString(password) {
		return invalid("password", "must be valid UTF-8 text")
	}
	switch n := utf8.RuneCountInString(password); {
	case n < minPasswordLength:
		return invalid("password", fmt.Sprintf("must be at least %d characters", minPasswordLength))
	case n > maxPasswordLength:
		return invalid("password", fmt.Sprintf("must be at most %d characters", maxPasswordLength))
	}
	return nil
}

// HashPassword returns the argon2id PHC string of a password, with a fresh random salt. It
// refuses a password that ValidatePassword refuses, so no caller can store one past the policy.
func HashPassword(password string) (string, error) {
	if err := ValidatePassword(password); err != nil {
		return "", err
	}
	p := currentParams
	salt := make([]byte, p.saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("accounts: reading salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.time, p.memoryKiB, p.threads, uint32(p.keyLen))
	return encodePHC(p, salt, key), nil
}

// VerifyPassword reports whether password matches an encoded hash, with the parameters the hash
// was made with. A wrong password is (false, nil); an unusable hash is ErrMalformedHash.
func VerifyPassword(encoded, password string) (bool, error) {
	h, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	p := h.params
	key := argon2.IDKey([]byte(password), h.salt, p.time, p.memoryKiB, p.threads, uint32(p.keyLen))
	return subtle.ConstantTimeCompare(key, h.key) == 1, nil
}

// VerifyDummy does the work of a verification and throws it away. Login calls it when the
// e-mail is unknown, so that answering INVALID_CREDENTIALS takes as long as for a wrong
// password and response times don't reveal which addresses have accounts.
func VerifyDummy(password string) {
	_, _ = VerifyPassword(dummyHash, password)
}

// NeedsRehash reports whether a hash was made with other parameters than new hashes get, so it
// should be replaced after the next successful login. An unusable hash needs one too.
func NeedsRehash(encoded string) bool {
	h, err := parsePHC(encoded)
	return err != nil || h.params != currentParams
}

type phcHash struct {
	params    argon2Params
	salt, key []byte
}

func encodePHC(p argon2Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memoryKiB, p.time, p.threads,
		phcEncoding.EncodeToString(salt), phcEncoding.EncodeToString(key))
}

// parsePHC accepts exactly the form encodePHC writes, with any in-bounds parameters: fields in
// the PHC order, canonical decimals and canonical base64, so each hash has one spelling.
func parsePHC(encoded string) (phcHash, error) {
	// "$argon2id$v=19$m=…,t=…,p=…$salt$key" splits into an empty string and five fields.
	fields := strings.Split(encoded, "$")
	if len(fields) != 6 || fields[0] != "" {
		return phcHash{}, malformed("not a PHC string")
	}
	if fields[1] != "argon2id" {
		return phcHash{}, malformed("algorithm is not argon2id")
	}
	if v, ok := cutDecimal(fields[2], "v="); !ok || v != argon2.Version {
		return phcHash{}, malformed("unsupported argon2 version")
	}
	params := strings.Split(fields[3], ",")
	if len(params) != 3 {
		return phcHash{}, malformed("parameters are not m,t,p")
	}
	m, okM := cutDecimal(params[0], "m=")
	t, okT := cutDecimal(params[1], "t=")
	p, okP := cutDecimal(params[2], "p=")
	if !okM || !okT || !okP {
		return phcHash{}, malformed("parameters are not m,t,p")
	}
	if p < 1 || p > maxThreads || t < 1 || t > maxTime || m < 8*p || m > maxMemoryKiB {
		return phcHash{}, malformed("parameters out of bounds")
	}
	salt, okSalt := decodeCanonical(fields[4])
	key, okKey := decodeCanonical(fields[5])
	if !okSalt || !okKey {
		return phcHash{}, malformed("salt or hash is not unpadded base64")
	}
	if len(salt) < minSaltLen || len(salt) > maxSaltLen || len(key) < minKeyLen || len(key) > maxKeyLen {
		return phcHash{}, malformed("salt or hash length out of bounds")
	}
	return phcHash{
		params: argon2Params{memoryKiB: m, time: t, threads: uint8(p), saltLen: len(salt), keyLen: len(key)},
		salt:   salt,
		key:    key,
	}, nil
}

// cutDecimal parses "<prefix><n>" where n is a uint32 without sign or leading zeros.
func cutDecimal(s, prefix string) (uint32, bool) {
	digits, ok := strings.CutPrefix(s, prefix)
	if !ok || len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	return uint32(n), err == nil
}

// decodeCanonical decodes unpadded standard base64 and insists on the one canonical spelling,
// which the decoder alone doesn't: it skips CR and LF and may ignore trailing bits.
func decodeCanonical(s string) ([]byte, bool) {
	b, err := phcEncoding.DecodeString(s)
	return b, err == nil && phcEncoding.EncodeToString(b) == s
}

func malformed(why string) error {
	return fmt.Errorf("%w: %s", ErrMalformedHash, why)
}
