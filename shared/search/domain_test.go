package search

import "testing"

func TestRegistrableDomain(t *testing.T) {
	cases := []struct{ url, want string }{
		{"https://app.example.com/dashboard?x=1", "example.com"},
		{"https://example.com", "example.com"},
		{"https://a.b.shop.co.uk/cart", "shop.co.uk"},
		{"https://alice.github.io/blog", "alice.github.io"},
		{"http://demo.openemr.io:8080/interface/login", "openemr.io"},
		{"https://APP.Example.COM./", "example.com"},
		{"https://bücher.example.de/", "example.de"},
		{"https://münchen.de/", "xn--mnchen-3ya.de"},
		{"https://github.io/", ""},
		{"https://co.uk/", ""},
		{"http://localhost:3000/", ""},
		{"http://intranet/wiki", ""},
		{"http://192.168.1.10/admin", ""},
		{"http://[::1]:8080/", ""},
		{"ftp://files.example.com/", ""},
		{"example.com/path", ""},
		{"", ""},
	}
	for _, tc := range cases {
		if got := RegistrableDomain(tc.url); got != tc.want {
			t.Errorf("RegistrableDomain(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
