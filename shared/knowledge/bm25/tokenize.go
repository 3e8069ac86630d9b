package bm25

import (
	"strings"
	"unicode"
)

// Tokenize splits text into lower-case terms: runs of letters and digits, without English stop
// words and one-letter terms. It does no stemming, so "expense" and "expenses" are different
// terms, and scripts written without spaces (Chinese, Japanese) become one term per run.
func Tokenize(text string) []string {
	var terms []string
	for f := range strings.FieldsFuncSeq(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if len([]rune(f)) < 2 || stopWords[f] {
			continue
		}
		terms = append(terms, f)
	}
	return terms
}

// stopWords are frequent English words that carry no topic; dropping them keeps a question
// such as "how do I submit an expense" from matching every chunk.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(`
		about above after again all am an and any are as at be because been before being below
		between both but by can could did do does doing down during each few for from further
		had has have having he her here hers herself him himself his how if in into is it its
		itself just me more most my myself no nor not now of off on once only or other our ours
		ourselves out over own same she should so some such than that the their theirs them
		themselves then there these they this those through to too under until up very was we
		were what when where which while who whom why will with would you your yours yourself
		yourselves`) {
		m[w] = true
	}
	return m
}()
