package gate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// role is what a word does in a label (lexicon.go); a word may play several.
type role uint16

const (
	rPay role = 1 << iota
	rImperative
	rFinal
	rObject
	rMove
	rMoney
	rProceed
	rCounter
	rMine
	rTotal
	rLead
	rFor
	rCustom // a tenant's own word: risky wherever it appears
)

// term is one entry of a lexicon, as it was written (for messages).
type term struct {
	text  string
	roles role
}

// lexicon is a compiled term list. Terms are keyed by their words run together ("pay now" →
// "paynow"), so that a window of whole words of the text, run together, finds them however the
// text spaces or splits them.
type lexicon struct {
	words map[string]term
	// maxKey is the longest key, in bytes: no window is built past it.
	maxKey int
	// stems match the start of a word.
	stems map[string]term
	// spaceless are the terms in scripts written without spaces, found anywhere in the text.
	spaceless []spacelessTerm
	// inside are found inside words too (URL terms only).
	inside []string
}

type spacelessTerm struct {
	folded string
	term
}

func newLexicon() *lexicon { return &lexicon{words: map[string]term{}, stems: map[string]term{}} }

// add compiles a term with a role; a term already present gains the role.
func (l *lexicon) add(text string, r role) {
	stem := strings.HasSuffix(text, "*")
	folded := Normalize(strings.TrimSuffix(text, "*"))
	if isSpaceless(folded) {
		for i, sp := range l.spaceless {
			if sp.folded == folded {
				l.spaceless[i].roles |= r
				return
			}
		}
		l.spaceless = append(l.spaceless, spacelessTerm{folded, term{text, r}})
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
	m := l.words
	if stem {
		m = l.stems
	}
	t, ok := m[k]
	if !ok {
		t.text = strings.TrimSuffix(text, "*")
	}
	t.roles |= r
	m[k] = t
	l.maxKey = max(l.maxKey, len(k))
}

// token is a word of normalized text: a run of letters and digits, at bytes [start, end).
type token struct {
	text       string
	start, end int
	number     bool
}

// tokenize splits normalized text into words. A digit zero among letters reads as the letter o
// ("B00K N0W"); a word of digits only is a number (a price, a count). Spacing marks belong to
// their word (the vowel signs of Indic scripts).
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
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mc, r) {
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
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
	}) >= 0
}

// hit is a term found in a text, at bytes [start, end) of its normalized form; first says it
// starts the text (its first word that is not a number, or its first character).
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
			if t, ok := l.words[key.String()]; ok {
				hits = append(hits, hit{t, toks[i].start, toks[j].end, i == first})
			}
		}
		w := toks[i].text
		for n := len(w); n > 0; {
			if t, ok := l.stems[w[:n]]; ok && utf8.RuneCountInString(w[:n]) >= 3 {
				hits = append(hits, hit{t, toks[i].start, toks[i].end, i == first})
				break
			}
			_, size := utf8.DecodeLastRuneInString(w[:n])
			n -= size
		}
	}
	lead := strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) })
	for _, sp := range l.spaceless {
		for off := 0; ; {
			i := strings.Index(s[off:], sp.folded)
			if i < 0 {
				break
			}
			hits = append(hits, hit{sp.term, off + i, off + i + len(sp.folded), off+i == lead})
			off += i + len(sp.folded)
		}
	}
	for _, in := range l.inside {
		for _, t := range toks {
			if strings.Contains(t.text, in) {
				hits = append(hits, hit{term{in, rPay}, t.start, t.end, false})
			}
		}
	}
	return hits
}
