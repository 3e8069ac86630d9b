package page

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/tokens"
)

// maxTerms is how many query terms count; a score is a set of them in a uint64.
const maxTerms = 64

// query is the user's task reduced to terms for picking the page lines that concern it:
// stemmed lower-case words, and character pairs for scripts written without spaces
// (Chinese, Japanese, Korean, Thai), where words cannot be split reliably.
type query struct {
	words map[string]int // term → bit
	grams []gram
}

type gram struct {
	text string
	bit  int
}

var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"can": true, "click": true, "could": true, "do": true, "for": true, "from": true, "go": true,
	"i": true, "in": true, "into": true, "is": true, "it": true, "me": true, "my": true, "of": true,
	"on": true, "or": true, "page": true, "please": true, "should": true, "so": true, "that": true,
	"the": true, "then": true, "this": true, "to": true, "want": true, "will": true, "with": true,
	"would": true, "you": true, "your": true,
}

func newQuery(s string) query {
	q := query{words: map[string]int{}}
	n := 0
	eachWord(strings.ToLower(s), func(w string, spaced bool) {
		if spaced {
			w = string(stemBytes([]byte(w)))
			if _, dup := q.words[w]; dup || n >= maxTerms || len(w) < 2 || stopWords[w] {
				return
			}
			q.words[w] = n
			n++
			return
		}
		rs := []rune(w)
		for i := 0; i < len(rs) && n < maxTerms; i++ {
			g := string(rs[i:min(i+2, len(rs))])
			if len(rs) > 1 && i == len(rs)-1 {
				break
			}
			q.grams = append(q.grams, gram{text: g, bit: n})
			n++
		}
	})
	return q
}

func (q query) empty() bool { return len(q.words) == 0 && len(q.grams) == 0 }

// match returns the set of query terms that s contains.
func (q query) match(s string) uint64 {
	if s == "" || q.empty() {
		return 0
	}
	var m uint64
	if len(q.words) > 0 {
		var buf [64]byte
		eachWord(s, func(w string, spaced bool) {
			if !spaced {
				return
			}
			var lw []byte
			if len(w) <= len(buf) {
				lw = appendLower(buf[:0], w)
			} else {
				lw = []byte(strings.ToLower(w))
			}
			if bit, ok := q.words[string(stemBytes(lw))]; ok {
				m |= 1 << bit
			}
		})
	}
	if len(q.grams) > 0 {
		ls := strings.ToLower(s)
		for _, g := range q.grams {
			if strings.Contains(ls, g.text) {
				m |= 1 << g.bit
			}
		}
	}
	return m
}

// eachWord calls fn with each run of letters and digits in s, and whether its script
// separates words with spaces.
func eachWord(s string, fn func(w string, spaced bool)) {
	start, spaced := -1, true
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII, the commonest case, without the Unicode tables.
			if c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' {
				if start < 0 {
					start, spaced = i, true
				}
			} else if start >= 0 {
				fn(s[start:i], spaced)
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			if start < 0 {
				start, spaced = i-size, true
			}
			if tokens.Unspaced(r) {
				spaced = false
			}
			continue
		}
		if start >= 0 {
			fn(s[start:i-size], spaced)
			start = -1
		}
	}
	if start >= 0 {
		fn(s[start:], spaced)
	}
}

// stemBytes strips the commonest English inflections so that "prices" finds "price" and
// "checked" finds "check"; it only has to map a word and its variants to the same
// string. It may change the buffer w.
func stemBytes(w []byte) []byte {
	switch {
	case len(w) > 4 && bytes.HasSuffix(w, []byte("ies")):
		return append(w[:len(w)-3], 'y')
	case len(w) > 5 && bytes.HasSuffix(w, []byte("ing")):
		return w[:len(w)-3]
	case len(w) > 4 && bytes.HasSuffix(w, []byte("ed")):
		return w[:len(w)-2]
	case len(w) > 3 && w[len(w)-1] == 's' && !bytes.HasSuffix(w, []byte("ss")):
		return w[:len(w)-1]
	}
	return w
}
