package pagemodel

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// signature identifies an element across steps without its id, which the extension may
// renumber: its tag, what names it, the attributes that say what it does, and a hash of
// the start of the text around it (so that the "Add to cart" of one product differs from
// another's). Values typed into fields and states such as checked do not count.
func signature(e Element, context uint64) uint64 {
	h := newFNV()
	h.add(e.Tag)
	if e.Tag != "textarea" { // a textarea's text is its value: a state, not what it is
		h.add(e.Text)
	}
	for _, a := range e.Attrs {
		switch a.Name {
		case "type", "role", "name", "aria-label", "placeholder", "title", "alt", "href", "data-name":
			h.add(a.Name)
			h.add(a.Value)
		case "value":
			if e.Kind() == KindButton {
				h.add(a.Value)
			}
		}
	}
	h ^= fnv64(context)
	h *= fnvPrime
	return uint64(h)
}

// fnv64 is FNV-1a, written out so that hashing strings allocates nothing.
type fnv64 uint64

const fnvPrime = 1099511628211

func newFNV() fnv64 { return 14695981039346656037 }

// add hashes s and a separator after it.
func (h *fnv64) add(s string) {
	for i := 0; i < len(s); i++ {
		*h ^= fnv64(s[i])
		*h *= fnvPrime
	}
	*h *= fnvPrime
}

// Fingerprint is a stable hash of what the page shows: its title, its elements (tag,
// attributes, states, values and text, without ids) and its text, in document order.
// Identical pages have the same fingerprint whatever ids the extension gave them; a page
// with new content (more results after a scroll, an error message, a typed value) has
// another.
func (p *Page) Fingerprint() string {
	h := sha256.New()
	write := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	write(p.title)
	states := p.Identity().States
	for i, e := range p.elements {
		// The state covers what the attributes miss, such as the option a select shows.
		write("\x01" + e.Tag + strconv.FormatUint(states[i], 16))
		for _, a := range e.Attrs {
			write(a.Name)
			write(a.Value)
		}
		write(e.Text)
	}
	for _, t := range p.texts {
		write("\x02" + t)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
