package page

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
)

// maxSummary is the length limit of a message's domSummary, in UTF-16 code units so that
// it holds for JavaScript clients too (and so also in runes).
const maxSummary = 200

// Summary describes the page in at most 200 characters for the chat history, e.g.
// "Checkout — 42 elements (12 buttons, 8 inputs), 3.1k chars". It is safe on any input.
func Summary(p *pagemodel.Page) string {
	c := p.Counts()
	var kinds []string
	for _, k := range []struct {
		n    int
		name string
	}{{c.Buttons, "button"}, {c.Inputs, "input"}, {c.Links, "link"}} {
		if k.n > 0 {
			kinds = append(kinds, plural(k.n, k.name))
		}
	}
	stats := plural(c.Elements, "element")
	if len(kinds) > 0 {
		stats += " (" + strings.Join(kinds, ", ") + ")"
	}
	stats += ", " + sizeOf(c.DOMChars) + " chars"

	title := p.Title()
	if title == "" && len(p.Texts()) > 0 {
		title = p.Texts()[0]
	}
	if title == "" && len(p.Elements()) > 0 {
		title = p.Elements()[0].Text
	}
	const sep = " — "
	if room := maxSummary - utf16Len(stats) - utf16Len(sep); title != "" && room > 1 {
		return cutUTF16(title, room) + sep + stats
	}
	return cutUTF16(stats, maxSummary)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// sizeOf writes a character count the short way: 812, 3.1k, 48k, 1.2M.
func sizeOf(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 10_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	case n < 1_000_000:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.FormatFloat(float64(n)/1_000_000, 'f', 1, 64) + "M"
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// cutUTF16 shortens s to at most n UTF-16 code units, ending with "…" when it cuts, and
// never inside a rune.
func cutUTF16(s string, n int) string {
	if utf16Len(s) <= n {
		return s
	}
	used, end := 0, 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if used+w > n-1 {
			break
		}
		used += w
		end = i + utf8.RuneLen(r)
	}
	return strings.TrimSpace(s[:end]) + "…"
}
