package knowledge

import (
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// hostProfile maps host names the way browsers do (UTS #46 non-transitional processing, as the
// WHATWG URL standard asks): case and width folded, Unicode labels to their xn-- form. Like
// browsers it allows "_" and labels such as "r3---sn-x", which strict DNS rules would refuse.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

const (
	maxHostLength  = 253
	maxLabelLength = 63
)

// NormalizeHost returns a host name in the one form that patterns and lookups compare: lower
// case, internationalized labels in their ASCII (xn--) form, without a trailing dot; IP
// addresses in their canonical text form (IPv6 without brackets). ok is false when host is not
// a usable host name.
func NormalizeHost(host string) (normalized string, ok bool) {
	h := strings.TrimSuffix(host, ".")
	if inner, found := strings.CutPrefix(h, "["); found {
		h, found = strings.CutSuffix(inner, "]")
		if !found {
			return "", false
		}
	}
	if h == "" {
		return "", false
	}
	if addr, err := netip.ParseAddr(h); err == nil {
		if addr.Zone() != "" {
			return "", false
		}
		return addr.String(), true
	}
	a, err := hostProfile.ToASCII(h)
	if err != nil {
		return "", false
	}
	a = strings.ToLower(a)
	// The mapping turns what it can't read (invalid UTF-8, U+FFFD) into labels that are not
	// valid themselves; a normalized host must map to itself.
	if again, err := hostProfile.ToASCII(a); err != nil || again != a {
		return "", false
	}
	if len(a) > maxHostLength {
		return "", false
	}
	for label := range strings.SplitSeq(a, ".") {
		if label == "" || len(label) > maxLabelLength {
			return "", false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	return a, true
}

// HostOf returns the active domain of a page URL (SERVER_SIDE_AGENT_ARCH.md §3.3): the
// normalized host name of an absolute http(s) URL, without its port. Anything else is a
// *ValidationError on the field "url".
func HostOf(rawURL string) (string, error) {
	switch {
	case rawURL == "":
		return "", invalid("url", "is required")
	case len(rawURL) > MaxURLLength:
		return "", invalid("url", "must be at most 8192 characters")
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Host == "" {
		return "", invalid("url", "must be an absolute http(s) URL")
	}
	host, ok := NormalizeHost(u.Hostname())
	if !ok {
		return "", invalid("url", "must have a valid host name")
	}
	return host, nil
}

// isIP reports whether a normalized host is an IP address rather than a name.
func isIP(host string) bool {
	_, err := netip.ParseAddr(host)
	return err == nil
}
