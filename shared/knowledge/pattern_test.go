package knowledge

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func mustPattern(t *testing.T, s string) Pattern {
	t.Helper()
	p, err := ParsePattern(s)
	if err != nil {
		t.Fatalf("ParsePattern(%q): %v", s, err)
	}
	return p
}

// The domain-filter matrix: which page URLs each pattern lets org knowledge through for.
func TestPatternMatchesURLs(t *testing.T) {
	tests := []struct {
		pattern, url string
		want         bool
	}{
		{"app.example.com", "https://app.example.com/page", true},
		{"app.example.com", "http://app.example.com", true},
		{"app.example.com", "https://other.example.com/", false},
		{"app.example.com", "https://example.com/", false},
		{"app.example.com", "https://x.app.example.com/", false},
		{"app.example.com", "https://app.example.com.evil.io/", false},
		{"app.example.com", "https://evilapp.example.com/", false},
		// ports are ignored on both sides
		{"app.example.com", "https://app.example.com:8443/x", true},
		{"localhost", "http://localhost:3000/", true},
		// case
		{"APP.Example.COM", "https://app.example.com/", true},
		{"app.example.com", "https://APP.EXAMPLE.com/", true},
		// a trailing dot is the same host
		{"app.example.com", "https://app.example.com./", true},
		{"app.example.com.", "https://app.example.com/", true},
		// wildcards: any depth below the domain, never the apex
		{"*.example.com", "https://app.example.com/", true},
		{"*.example.com", "https://a.b.example.com/", true},
		{"*.example.com", "https://example.com/", false},
		{"*.example.com", "https://www.example.com:443/", true},
		{"*.example.com", "https://example.com.evil.io/", false},
		{"*.example.com", "https://badexample.com/", false},
		{"*.EXAMPLE.com", "https://App.Example.Com/", true},
		// internationalized names match in either spelling
		{"bücher.example", "https://xn--bcher-kva.example/", true},
		{"xn--bcher-kva.example", "https://bücher.example/", true},
		{"*.bücher.example", "https://shop.BÜCHER.example/", true},
		{"bücher.example", "https://bucher.example/", false},
		// IP addresses, exact only
		{"127.0.0.1", "http://127.0.0.1:8080/", true},
		{"::1", "http://[::1]:8080/", true},
		{"[::1]", "http://[0:0::1]/", true},
		{"127.0.0.1", "http://127.0.0.2/", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.url, func(t *testing.T) {
			p := mustPattern(t, tt.pattern)
			host, err := HostOf(tt.url)
			if err != nil {
				t.Fatalf("HostOf(%q): %v", tt.url, err)
			}
			if got := p.Matches(host); got != tt.want {
				t.Errorf("%s matches %s (host %s): got %v, want %v", p, tt.url, host, got, tt.want)
			}
		})
	}
}

func TestParsePattern(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"app.example.com", "app.example.com"},
		{"  App.Example.COM  ", "app.example.com"},
		{"*.example.com", "*.example.com"},
		{"*.Bücher.example", "*.xn--bcher-kva.example"},
		{"ＡＰＰ．example．com", "app.example.com"},
		{"localhost", "localhost"},
		{"my_host.corp.internal", "my_host.corp.internal"},
		{"*.corp.internal", "*.corp.internal"},
		{"10.0.0.1", "10.0.0.1"},
		{"[2001:DB8::1]", "2001:db8::1"},
	}
	for _, tt := range tests {
		if got := mustPattern(t, tt.in).String(); got != tt.want {
			t.Errorf("ParsePattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParsePatternRefuses(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "is required"},
		{"   ", "is required"},
		{"https://app.example.com/", "must be a host name such as app.example.com, not a URL"},
		{"app.example.com/path", "must be a host name such as app.example.com, not a URL"},
		{"*", "may use * only as its whole first label, as in *.example.com"},
		{"*example.com", "may use * only as its whole first label, as in *.example.com"},
		{"app.*.example.com", "may use * only as its whole first label, as in *.example.com"},
		{"*.*.example.com", "may use * only as its whole first label, as in *.example.com"},
		{"app.example.com:8080", "must not include a port"},
		{"*.com", "must not cover a whole public suffix such as *.com or *.co.uk"},
		{"*.co.uk", "must not cover a whole public suffix such as *.com or *.co.uk"},
		{"*.github.io", "must not cover a whole public suffix such as *.com or *.co.uk"},
		{"*.10.0.0.1", "must name a domain after *., not an IP address"},
		{"*.", "must be a valid host name such as app.example.com or *.example.com"},
		{"app..example.com", "must be a valid host name such as app.example.com or *.example.com"},
		{"app example.com", "must be a valid host name such as app.example.com or *.example.com"},
		{"app#x.example.com", "must be a valid host name such as app.example.com or *.example.com"},
		{strings.Repeat("a", 64) + ".com", "must be a valid host name such as app.example.com or *.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePattern(tt.in)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "pattern" || ve.Reason != tt.reason {
				t.Errorf("ParsePattern(%q) error = %v, want pattern %s", tt.in, err, tt.reason)
			}
		})
	}
}

func TestHostOf(t *testing.T) {
	valid := []struct{ url, host string }{
		{"https://App.Example.com:8443/a?b=c#d", "app.example.com"},
		{"http://user:pw@example.com/", "example.com"},
		{"HTTPS://example.com", "example.com"},
		{"https://bücher.example/", "xn--bcher-kva.example"},
		{"http://[::1]:3000/", "::1"},
	}
	for _, tt := range valid {
		if got, err := HostOf(tt.url); err != nil || got != tt.host {
			t.Errorf("HostOf(%q) = %q, %v; want %q", tt.url, got, err, tt.host)
		}
	}
	invalid := []struct{ url, reason string }{
		{"", "is required"},
		{"example.com", "must be an absolute http(s) URL"},
		{"/relative/path", "must be an absolute http(s) URL"},
		{"ftp://example.com/", "must be an absolute http(s) URL"},
		{"javascript:alert(1)", "must be an absolute http(s) URL"},
		{"http:example.com", "must be an absolute http(s) URL"},
		{"https://", "must be an absolute http(s) URL"},
		{"https://exa mple.com/", "must be an absolute http(s) URL"},
		{"https://a..b/", "must have a valid host name"},
		{"https://" + strings.Repeat("a", MaxURLLength) + ".com/", "must be at most 8192 characters"},
	}
	for _, tt := range invalid {
		_, err := HostOf(tt.url)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "url" || ve.Reason != tt.reason {
			t.Errorf("HostOf(%.40q) error = %v, want url %s", tt.url, err, tt.reason)
		}
	}
}

func TestBestMatch(t *testing.T) {
	patterns := []Pattern{mustPattern(t, "*.example.com"), mustPattern(t, "*.app.example.com"), mustPattern(t, "x.app.example.com")}
	tests := []struct{ host, want string }{
		{"x.app.example.com", "x.app.example.com"},
		{"y.app.example.com", "*.app.example.com"},
		{"other.example.com", "*.example.com"},
	}
	for _, tt := range tests {
		if p, ok := BestMatch(patterns, tt.host); !ok || p.String() != tt.want {
			t.Errorf("BestMatch(%s) = %s, %v; want %s", tt.host, p, ok, tt.want)
		}
	}
	if p, ok := BestMatch(patterns, "example.com"); ok {
		t.Errorf("BestMatch(example.com) = %s, want no match", p)
	}
	if _, ok := BestMatch(nil, "example.com"); ok {
		t.Error("BestMatch with no patterns matched")
	}
}

func TestPatternsFor(t *testing.T) {
	tests := []struct {
		host string
		want []string
	}{
		{"a.b.example.com", []string{"a.b.example.com", "*.b.example.com", "*.example.com"}},
		{"example.com", []string{"example.com"}},
		{"shop.example.co.uk", []string{"shop.example.co.uk", "*.example.co.uk"}},
		{"me.github.io", []string{"me.github.io"}},
		{"localhost", []string{"localhost"}},
		{"10.0.0.1", []string{"10.0.0.1"}},
		{"::1", []string{"::1"}},
	}
	for _, tt := range tests {
		if got := PatternsFor(tt.host); !slices.Equal(got, tt.want) {
			t.Errorf("PatternsFor(%s) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

// FuzzPattern checks that parsing is stable and that matching agrees with the lookup keys:
// a pattern matches a host exactly when it is one of PatternsFor(host).
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"app.example.com", "*.example.com", "*.b.example.com|a.b.example.com", "bücher.example|shop.bücher.example", "*.co.uk|x.co.uk", "::1", "*.a|b.a", "a.b|a.b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		pattern, hostIn, _ := strings.Cut(in, "|")
		p, err := ParsePattern(pattern)
		if err != nil {
			return
		}
		again, err := ParsePattern(p.String())
		if err != nil || again != p {
			t.Fatalf("ParsePattern(%q) = %q, which parses to %q, %v", pattern, p, again, err)
		}
		host, ok := NormalizeHost(hostIn)
		if !ok {
			return
		}
		if again, ok := NormalizeHost(host); !ok || again != host {
			t.Fatalf("NormalizeHost(%q) = %q, which normalizes to %q, %v", hostIn, host, again, ok)
		}
		if got, want := p.Matches(host), slices.Contains(PatternsFor(host), p.String()); got != want {
			t.Fatalf("%s matches %s: %v, but PatternsFor(%s) = %v", p, host, got, host, PatternsFor(host))
		}
		if p.Matches(host) && !strings.HasSuffix(host, strings.TrimPrefix(p.String(), "*")) {
			t.Fatalf("%s matches %s, which does not end with its domain", p, host)
		}
	})
}

// FuzzHostOf checks that any URL is either refused with a url ValidationError or gives a
// host that is already normalized.
func FuzzHostOf(f *testing.F) {
	for _, s := range []string{"https://example.com/", "http://[::1]:80/", "https://bücher.example", "ftp://x", "http://a..b", "https://xn--bcher-kva.example/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		host, err := HostOf(raw)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "url" {
				t.Fatalf("HostOf(%q) error = %v, want a url ValidationError", raw, err)
			}
			return
		}
		if again, ok := NormalizeHost(host); !ok || again != host {
			t.Fatalf("HostOf(%q) = %q, which normalizes to %q, %v", raw, host, again, ok)
		}
	})
}

func TestOverlaps(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"app.example.com", "app.example.com", true},
		{"app.example.com", "other.example.com", false},
		{"*.example.com", "app.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "*.example.com", true},
		{"*.example.com", "*.app.example.com", true},
		{"*.example.com", "*.example.org", false},
		{"*.b.example.com", "*.c.example.com", false},
	}
	for _, tt := range tests {
		a, b := mustPattern(t, tt.a), mustPattern(t, tt.b)
		if a.Overlaps(b) != tt.want || b.Overlaps(a) != tt.want {
			t.Errorf("%s overlaps %s: got %v/%v, want %v", a, b, a.Overlaps(b), b.Overlaps(a), tt.want)
		}
	}
}
