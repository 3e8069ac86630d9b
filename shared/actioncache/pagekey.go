package actioncache

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/screenagent/backend/shared/pagemodel"
)

// PageKey identifies a page for the cache: its URL pattern, its interactive structure (each
// element's tag, role, type, name and label) and its text, with digits masked and without
// element ids or values typed into fields. The same page with renumbered ids, another time
// or another counter has the same key; a page with other controls, another layout or other
// words has another, so a step decided on one is never replayed on the other.
func PageKey(rawURL string, pg *pagemodel.Page) string {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
	}
	write(URLPattern(rawURL), maskDigits(strings.ToLower(pg.Title())))
	for _, e := range pg.Elements() {
		write("\x01"+e.Tag, attr(e, "role"), attr(e, "type"), attr(e, "name"), attr(e, "aria-label"), attr(e, "placeholder"))
		if e.Kind() != pagemodel.KindInput {
			// A field's text is its value, which the task itself changes; a control's is its label.
			write(maskDigits(strings.ToLower(e.Text)))
		}
	}
	for _, t := range pg.Texts() {
		write("\x02" + maskDigits(strings.ToLower(t)))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func attr(e pagemodel.Element, name string) string {
	v, _ := e.Attr(name)
	return maskDigits(strings.ToLower(v))
}

// ShapeKey is the coarse form of a page that a replayed action must bring: its URL pattern and
// the kinds of its elements in order, a run of alike elements counted once. It holds when the
// action did what it did before (the same form, the same list, however long the list is now);
// an error page, another place or a failed navigation has another shape. Whether the new page
// may be served again is PageKey's to say.
func ShapeKey(rawURL string, pg *pagemodel.Page) string {
	h := sha256.New()
	h.Write([]byte(URLPattern(rawURL)))
	prev := ""
	for _, e := range pg.Elements() {
		shape := "\x01" + e.Tag + "\x00" + attr(e, "role") + "\x00" + attr(e, "type")
		if shape == prev {
			continue
		}
		h.Write([]byte(shape))
		prev = shape
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// ExactKey identifies the page exactly as it is, digits, typed values and states included, or
// is "" for a page too large for a digest: a failed action whose page has the same key before
// and after changed nothing.
func ExactKey(rawURL string, pg *pagemodel.Page) string {
	d := pg.Digest()
	if d == nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(rawURL))
	h.Write([]byte{0})
	h.Write(d)
	return hex.EncodeToString(h.Sum(nil)[:12])
}
