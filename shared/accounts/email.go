package accounts

import (
	"net/mail"
	"strings"
)

const (
	maxEmailLength     = 254 // RFC 5321's 256-octet path less its angle brackets
	maxLocalPartLength = 64  // RFC 5321 §4.5.3.1.1
	maxLabelLength     = 63  // RFC 1035 §2.3.4
)

// NormalizeEmail returns the form an e-mail address is stored and looked up in: trimmed and
// lower-cased, so that uniqueness and login are case-insensitive. It accepts one plain
// addr-spec ("name@example.com"): no display name, angle brackets, comments or quoted local
// part, and a domain that is a host name with at least one dot.
//
// Addresses must be ASCII (international domains in their xn-- form): lower-casing is a
// faithful case-insensitive key only for ASCII, and Unicode lookalikes would let two accounts
// appear to share an address.
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", invalid("email", "is required")
	case !isASCII(s):
		return "", invalid("email", "must contain only ASCII characters")
	case len(s) > maxEmailLength:
		return "", invalid("email", "must be at most 254 characters")
	}
	s = strings.ToLower(s)
	// Comparing the parsed address with the input is what rules out every form but the bare
	// addr-spec: the parser accepts them all and returns only the address.
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name != "" || addr.Address != s {
		return "", invalid("email", "must be a single address such as name@example.com")
	}
	at := strings.LastIndexByte(s, '@')
	if at > maxLocalPartLength {
		return "", invalid("email", "must have at most 64 characters before the @")
	}
	if !isHostName(s[at+1:]) {
		return "", invalid("email", "must have a domain such as example.com")
	}
	return s, nil
}

// isHostName reports whether s is a lower-case DNS host name of two or more labels whose last
// one is not numeric, which also refuses domain literals and bare IP addresses.
func isHostName(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > maxLabelLength || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return strings.ContainsFunc(labels[len(labels)-1], func(r rune) bool { return r >= 'a' && r <= 'z' })
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
