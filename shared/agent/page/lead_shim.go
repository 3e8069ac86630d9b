package page

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Interim versions of the page-view helpers (issue 13), replaced when the page view lands.

// Secret reports whether the element is a password-like field.
func (p *Page) Secret(id int) bool {
	e, ok := p.Element(id)
	if !ok || e.Tag != "input" {
		return false
	}
	typ, _ := e.Attr("type")
	ac, _ := e.Attr("autocomplete")
	ac = strings.ToLower(ac)
	return strings.EqualFold(typ, "password") || strings.Contains(ac, "password") || strings.HasPrefix(ac, "cc-") || ac == "one-time-code"
}

// Fingerprint hashes what the page shows, ids aside.
func (p *Page) Fingerprint() string {
	h := sha256.New()
	for _, e := range p.elements {
		h.Write([]byte(formatElement(Element{Tag: e.Tag, Attrs: e.Attrs, Text: e.Text})))
		h.Write([]byte{0})
	}
	for _, t := range p.texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
