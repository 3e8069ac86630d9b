package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/knowledge"
)

// chunk groups blocks into chunks of at most maxRunes characters. A heading or a page break
// always starts a new chunk; paragraphs of one section share a chunk while they fit.
func chunk(blocks []block, maxRunes int, paged bool) []knowledge.DocChunk {
	var (
		out     []knowledge.DocChunk
		section string
		page    = 1
		buf     strings.Builder
		runes   int
	)
	flush := func() {
		if runes == 0 {
			return
		}
		c := knowledge.DocChunk{Section: section, Position: len(out) + 1, Content: buf.String()}
		if paged {
			c.Page = page
		}
		out = append(out, c)
		buf.Reset()
		runes = 0
	}
	for _, b := range blocks {
		switch b.kind {
		case heading:
			flush()
			section = b.text
		case pageBreak:
			flush()
			page++
		case paragraph:
			for _, piece := range split(b.text, maxRunes) {
				n := utf8.RuneCountInString(piece)
				if runes > 0 && runes+2+n > maxRunes {
					flush()
				}
				if runes > 0 {
					buf.WriteString("\n\n")
					runes += 2
				}
				buf.WriteString(piece)
				runes += n
			}
		}
	}
	flush()
	return out
}

// split cuts text into pieces of at most maxRunes characters, each cut at the last line break
// that fits, else the last sentence end, else the last space; a word longer than maxRunes is
// cut where the cap falls.
func split(text string, maxRunes int) []string {
	var pieces []string
	for text != "" {
		limit := byteOffset(text, maxRunes)
		if limit == len(text) {
			pieces = append(pieces, text)
			break
		}
		cut := bestCut(text[:limit])
		if cut <= 0 {
			cut = limit
		}
		if p := strings.TrimSpace(text[:cut]); p != "" {
			pieces = append(pieces, p)
		}
		text = strings.TrimSpace(text[cut:])
	}
	return pieces
}

// byteOffset is the byte offset of the n-th rune of s (len(s) if s is shorter).
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// bestCut returns where to end a piece within s: after its last newline, else after its last
// sentence end (". ", "! ", "? "), else at its last space; 0 when there is none.
func bestCut(s string) int {
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return i + 1
	}
	best := 0
	for _, end := range []string{". ", "! ", "? "} {
		if i := strings.LastIndex(s, end); i > 0 && i+1 > best {
			best = i + 1
		}
	}
	if best > 0 {
		return best
	}
	return strings.LastIndexFunc(s, unicode.IsSpace)
}
