package gate

import (
	"strings"
	"unicode"
)

// strength is how a term counts (see lexicon.go).
type strength uint8

const (
	strong strength = iota + 1
	weak
	safe
)

// term is one entry of a lexicon, as it was written (for messages).
type term struct {
	text     string
	strength strength
}

// lexicon is a compiled term list. Terms are keyed by their words run together ("pay now" →
// "paynow"), so that a window of whole words of the text, run together, finds them however the
// text spaces or splits them.
type lexicon struct {
	words map[string]term
	// maxKey is the longest key, in bytes: no window is built past it.
	maxKey int
	// spaceless are the terms in scripts written without spaces, found anywhere in the text.
	spaceless []spacelessTerm
	// inside are found inside words too (URL terms only).
	inside []string
}

type spacelessTerm struct {
	folded string
	term
}

// add compiles a term. A risky key keeps its strongest reading; a safe term is kept apart, as it
// excuses rather than flags.
func (l *lexicon) add(text string, s strength) {
	folded := Normalize(text)
	if isSpaceless(folded) {
		l.spaceless = append(l.spaceless, spacelessTerm{folded, term{text, s}})
		return
	}
	var key strings.Builder
	for _, t := range tokenize(folded) {
		key.WriteString(t.text)
	}
	k := key.String()
	if k == "" {
		return
	}
	if s == safe {
		k = "\x00" + k // its own key space: "order" is risky, "\x00order history" safe
	} else if old, ok := l.words[k]; ok && old.strength == strong {
		return
	}
	l.words[k] = term{text, s}
	l.maxKey = max(l.maxKey, len(k))
}

func newLexicon() *lexicon { return &lexicon{words: map[string]term{}} }

// token is a word of normalized text: a run of letters and digits, at bytes [start, end).
type token struct {
	text       string
	start, end int
	number     bool
}

// tokenize splits normalized text into words. A digit zero among letters reads as the letter o
// ("B00K N0W"); a word of digits only is a number (a price, a count).
func tokenize(s string) []token {
	var out []token
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := s[start:end]
		letters := strings.IndexFunc(w, unicode.IsLetter) >= 0
		if letters {
			w = strings.ReplaceAll(w, "0", "o")
		}
		out = append(out, token{text: w, start: start, end: end, number: !letters})
		start = -1
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return out
}

// isSpaceless reports whether s is written in a script without spaces between words.
func isSpaceless(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
	}) >= 0
}

// hit is a term found in a text, at bytes [start, end) of its normalized form; first says it
// starts at the text's first word that is not a number.
type hit struct {
	term
	start, end int
	first      bool
}

// find returns every term of l in normalized text s.
func (l *lexicon) find(s string) []hit {
	toks := tokenize(s)
	first := -1
	for i, t := range toks {
		if !t.number {
			first = i
			break
		}
	}
	var hits []hit
	for i := range toks {
		var key strings.Builder
		for j := i; j < len(toks) && key.Len()+len(toks[j].text) <= l.maxKey; j++ {
			key.WriteString(toks[j].text)
			k := key.String()
			if t, ok := l.words[k]; ok {
				hits = append(hits, hit{t, toks[i].start, toks[j].end, i == first})
			}
			if t, ok := l.words["\x00"+k]; ok {
				hits = append(hits, hit{t, toks[i].start, toks[j].end, i == first})
			}
		}
	}
	for _, sp := range l.spaceless {
		for off := 0; ; {
			i := strings.Index(s[off:], sp.folded)
			if i < 0 {
				break
			}
			hits = append(hits, hit{sp.term, off + i, off + i + len(sp.folded), false})
			off += i + len(sp.folded)
		}
	}
	for _, in := range l.inside {
		for _, t := range toks {
			if strings.Contains(t.text, in) {
				hits = append(hits, hit{term{in, strong}, t.start, t.end, false})
			}
		}
	}
	return hits
}

// risky returns the first term of hits that commits the user: a strong one, or a weak one that
// starts the text, unless a safe term around it excuses it.
func risky(hits []hit) (string, bool) {
	for _, h := range hits {
		if h.strength == safe || h.strength == weak && !h.first {
			continue
		}
		excused := false
		for _, s := range hits {
			if s.strength == safe && s.start <= h.start && h.end <= s.end {
				excused = true
				break
			}
		}
		if !excused {
			return h.text, true
		}
	}
	return "", false
}
