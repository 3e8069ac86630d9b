package search

import (
	"net/netip"

	"golang.org/x/net/publicsuffix"

	"github.com/screenagent/backend/shared/knowledge"
)

// RegistrableDomain is the domain under which a page's site is registered, one label below its
// public suffix (example.co.uk for https://app.example.co.uk/x, alice.github.io for
// https://alice.github.io/): the scope of a domain-restricted search, which thus covers the
// site's other hosts too. It is "" for an IP address, a single-label or public-suffix host, and
// anything that is not an absolute http(s) URL: such pages are searched on the open web.
func RegistrableDomain(pageURL string) string {
	host, err := knowledge.HostOf(pageURL)
	if err != nil {
		return ""
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return ""
	}
	domain, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return ""
	}
	return domain
}
