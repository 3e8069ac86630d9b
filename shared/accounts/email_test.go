package accounts

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeEmail(t *testing.T) {
	const (
		reasonRequired = "is required"
		reasonASCII    = "must contain only ASCII characters"
		reasonLong     = "must be at most 254 characters"
		reasonSingle   = "must be a single address such as name@example.com"
		reasonLocal    = "must have at most 64 characters before the @"
		reasonDomain   = "must have a domain such as example.com"
	)
	// 64 + 1 + 189 = 254 characters, at every limit at once.
	longest := strings.Repeat("l", 64) + "@" + strings.Repeat("d", 63) + "." + strings.Repeat("d", 63) + "." + strings.Repeat("d", 57) + ".com"
	tests := []struct {
		name   string
		in     string
		want   string
		reason string // empty when accepted
	}{
		{"plain", "ana@example.com", "ana@example.com", ""},
		{"upper case", "Ana.Silva@Example.COM", "ana.silva@example.com", ""},
		{"surrounding whitespace", " \t ana@example.com \n", "ana@example.com", ""},
		{"plus tag", "ana+work@example.com", "ana+work@example.com", ""},
		{"apostrophe", "o'brien@example.ie", "o'brien@example.ie", ""},
		{"subdomains and hyphen", "x@mail.my-company.co.uk", "x@mail.my-company.co.uk", ""},
		{"numeric labels before the TLD", "x@123.45.example", "x@123.45.example", ""},
		{"punycode domain", "x@xn--bcher-kva.example", "x@xn--bcher-kva.example", ""},
		{"254 characters", longest, longest, ""},

		{"empty", "", "", reasonRequired},
		{"whitespace", "   ", "", reasonRequired},
		{"255 characters", "a" + longest, "", reasonLong},
		{"unicode domain", "ana@exämple.com", "", reasonASCII},
		{"unicode local part", "jörg@example.com", "", reasonASCII},
		{"kelvin sign lowering to k", "\u212A@example.com", "", reasonASCII},
		{"no at", "ana.example.com", "", reasonSingle},
		{"two ats", "ana@b@example.com", "", reasonSingle},
		{"no local part", "@example.com", "", reasonSingle},
		{"no domain", "ana@", "", reasonSingle},
		{"display name", "Ana <ana@example.com>", "", reasonSingle},
		{"angle brackets", "<ana@example.com>", "", reasonSingle},
		{"trailing comment", "ana@example.com (Ana)", "", reasonSingle},
		{"two addresses", "ana@example.com, bob@example.com", "", reasonSingle},
		{"quoted local part", `"ana silva"@example.com`, "", reasonSingle},
		{"quoted plain local part", `"ana"@example.com`, "", reasonSingle},
		{"space inside", "ana silva@example.com", "", reasonSingle},
		{"newline inside", "ana@exam\nple.com", "", reasonSingle},
		{"double dot", "ana..silva@example.com", "", reasonSingle},
		{"leading dot", ".ana@example.com", "", reasonSingle},
		{"trailing dot in domain", "ana@example.com.", "", reasonSingle},
		{"65-character local part", strings.Repeat("l", 65) + "@example.com", "", reasonLocal},
		{"domain without dot", "ana@localhost", "", reasonDomain},
		{"domain literal", "ana@[192.0.2.1]", "", reasonDomain},
		{"IP address", "ana@192.0.2.1", "", reasonDomain},
		{"label starts with hyphen", "ana@-example.com", "", reasonDomain},
		{"label ends with hyphen", "ana@example-.com", "", reasonDomain},
		{"underscore in domain", "ana@my_host.example.com", "", reasonDomain},
		{"other atext in domain", "ana@exa!mple.com", "", reasonDomain},
		{"64-character label", "ana@" + strings.Repeat("d", 64) + ".com", "", reasonDomain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeEmail(tt.in)
			if tt.reason == "" {
				if err != nil || got != tt.want {
					t.Errorf("NormalizeEmail(%q) = (%q, %v), want (%q, nil)", tt.in, got, err, tt.want)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("NormalizeEmail(%q) = (%q, %v), want a *ValidationError", tt.in, got, err)
			}
			if ve.Field != "email" || ve.Reason != tt.reason || got != "" {
				t.Errorf("NormalizeEmail(%q) = (%q, {%q, %q}), want (\"\", {%q, %q})", tt.in, got, ve.Field, ve.Reason, "email", tt.reason)
			}
		})
	}
}

func TestNormalizeEmailIsIdempotent(t *testing.T) {
	for _, in := range []string{"Ana@Example.com", " BOB+x@MAIL.Example.ORG "} {
		once, err := NormalizeEmail(in)
		if err != nil {
			t.Fatalf("NormalizeEmail(%q): %v", in, err)
		}
		twice, err := NormalizeEmail(once)
		if err != nil || twice != once {
			t.Errorf("NormalizeEmail(%q) = (%q, %v), want (%q, nil)", once, twice, err, once)
		}
	}
}
