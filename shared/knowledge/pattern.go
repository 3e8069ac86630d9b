package knowledge

import (
	"net/netip"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Pattern is an allowed-domain pattern: an exact host ("app.example.com") or a wildcard
// ("*.example.com"). A wildcard matches every host below its domain, at any depth
// (a.example.com, a.b.example.com), but not the domain itself: allow the apex with a second,
// exact pattern. That is how TLS certificates read a wildcard, and it keeps "*.example.com" from
// silently covering a marketing site at example.com. Matching ignores case and ports and
// compares internationalized names in their ASCII form.
type Pattern struct {
	base     string // a normalized host
	wildcard bool
}

// ParsePattern reads a pattern as an admin types it. A wildcard's domain must not be a public
// suffix ("*.com", "*.co.uk", "*.github.io"), which would cover other people's sites. Errors
// are *ValidationError on the field "pattern".
func ParsePattern(s string) (Pattern, error) {
	s = strings.TrimSpace(s)
	rest, wildcard := strings.CutPrefix(s, "*.")
	switch {
	case s == "":
		return Pattern{}, invalid("pattern", "is required")
	case strings.Contains(s, "/"):
		return Pattern{}, invalid("pattern", "must be a host name such as app.example.com, not a URL")
	case strings.Contains(rest, "*"):
		return Pattern{}, invalid("pattern", "may use * only as its whole first label, as in *.example.com")
	case strings.Contains(s, ":") && !isIPv6(s):
		return Pattern{}, invalid("pattern", "must not include a port")
	}
	base, ok := NormalizeHost(rest)
	if !ok {
		return Pattern{}, invalid("pattern", "must be a valid host name such as app.example.com or *.example.com")
	}
	if wildcard {
		if isIP(base) {
			return Pattern{}, invalid("pattern", "must name a domain after *., not an IP address")
		}
		if isPublicSuffix(base) {
			return Pattern{}, invalid("pattern", "must not cover a whole public suffix such as *.com or *.co.uk")
		}
	}
	return Pattern{base: base, wildcard: wildcard}, nil
}

func isIPv6(s string) bool {
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	return err == nil && a.Is6()
}

// isPublicSuffix reports whether a normalized host name is a suffix under which the public
// registers names (the Public Suffix List, private section included).
func isPublicSuffix(host string) bool {
	ps, _ := publicsuffix.PublicSuffix(host)
	return ps == host
}

// String is the canonical form of the pattern, as stored.
func (p Pattern) String() string {
	if p.wildcard {
		return "*." + p.base
	}
	return p.base
}

// Wildcard reports whether the pattern is a wildcard.
func (p Pattern) Wildcard() bool { return p.wildcard }

// Matches reports whether the pattern matches a host normalized by NormalizeHost or HostOf.
func (p Pattern) Matches(host string) bool {
	if p.base == "" {
		return false
	}
	if p.wildcard {
		return strings.HasSuffix(host, "."+p.base)
	}
	return host == p.base
}

// BestMatch returns the most specific pattern matching host: an exact one, else the wildcard
// with the longest domain.
func BestMatch(patterns []Pattern, host string) (Pattern, bool) {
	var best Pattern
	found := false
	for _, p := range patterns {
		if !p.Matches(host) {
			continue
		}
		if !found || !p.wildcard && best.wildcard || p.wildcard == best.wildcard && len(p.base) > len(best.base) {
			best, found = p, true
		}
	}
	return best, found
}

// PatternsFor returns, in canonical form, every valid pattern that matches a normalized host:
// the host itself and a wildcard for each parent domain that is not a public suffix, most
// specific first. Knowledge is stored under patterns, so these are the keys a lookup for the
// host reads.
func PatternsFor(host string) []string {
	keys := []string{host}
	if isIP(host) {
		return keys
	}
	for i := strings.IndexByte(host, '.'); i >= 0; {
		parent := host[i+1:]
		if parent != "" && !isPublicSuffix(parent) {
			keys = append(keys, "*."+parent)
		}
		next := strings.IndexByte(parent, '.')
		if next < 0 {
			break
		}
		i += next + 1
	}
	return keys
}

// Overlaps reports whether some host matches both patterns: whether knowledge stored under one
// can be reached through the other being allowed.
func (p Pattern) Overlaps(q Pattern) bool {
	switch {
	case !q.wildcard:
		return p.Matches(q.base)
	case !p.wildcard:
		return q.Matches(p.base)
	}
	return p.base == q.base || strings.HasSuffix(p.base, "."+q.base) || strings.HasSuffix(q.base, "."+p.base)
}
