package actioncache

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
)

// An answer (finish("…")) is never replayed from the cache: the entry keeps the answer as a
// template whose holes are the facts the run read on the page, each with where it was read
// (the text line holding it, and the line before). A replay reads every fact again from the
// current page and fills the template with what it reads now.

// Answer is a finish result as a template over the facts of its page.
type Answer struct {
	// Parts alternate between text and facts: Parts[0] text, then a fact, then text, ….
	Parts []string `json:"parts"`
	Facts []Fact   `json:"facts,omitempty"`
}

// Fact is a value of the answer read on the page: the line of page text that held it is
// Before + value + After, and the line before that one was Prev.
type Fact struct {
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Prev   string `json:"prev,omitempty"`
	// Value is what the run read; a replay that reads another value goes to the model, whose
	// wording (and any decision the answer states) may depend on it.
	Value string `json:"value"`
}

const (
	maxFactWords = 8
	minFactRunes = 3
	maxFacts     = 6
)

// lines are the page's text lines in a fixed order: its plain text, then its elements' texts.
func lines(pg *pagemodel.Page) []string {
	out := append([]string(nil), pg.Texts()...)
	for _, e := range pg.Elements() {
		if e.Text != "" {
			out = append(out, e.Text)
		}
	}
	return out
}

// learnAnswer turns a run's answer into a template: the longest spans of its words that the
// page shows and the task did not give become facts. It fails when a fact cannot be located
// unambiguously, so that such an answer is always left to the model.
func learnAnswer(result, task string, pg *pagemodel.Page) (Answer, bool) {
	ls := lines(pg)
	holes := factSpans(result, task, strings.Join(ls, "\n"))
	if len(holes) > maxFacts {
		return Answer{}, false
	}
	a := Answer{}
	at := 0
	for _, h := range holes {
		v := result[h.start:h.end]
		f, ok := locate(ls, v)
		if !ok {
			return Answer{}, false
		}
		a.Parts = append(a.Parts, result[at:h.start], v)
		a.Facts = append(a.Facts, f)
		at = h.end
	}
	a.Parts = append(a.Parts, result[at:])
	return a, true
}

// span is a part of a text, by byte offsets.
type span struct{ start, end int }

// factSpans are the spans of the result that the page's text shows and the task does not give,
// the longest first, in the order they stand in the result.
func factSpans(result, task, all string) []span {
	lowTask := strings.ToLower(task)
	words := wordSpans(result)
	claimed := make([]bool, len(words))
	var holes []span
	for n := min(maxFactWords, len(words)); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if anyClaimed(claimed[i : i+n]) {
				continue
			}
			start, end := trimSpan(result, words[i][0], words[i+n-1][1])
			v := result[start:end]
			if !factLike(v) || strings.Contains(lowTask, strings.ToLower(v)) || !strings.Contains(all, v) {
				continue
			}
			for k := i; k < i+n; k++ {
				claimed[k] = true
			}
			holes = append(holes, span{start, end})
		}
	}
	slices.SortFunc(holes, func(a, b span) int { return a.start - b.start })
	return holes
}

// locate finds the line that holds v and checks that reading by it gives v back.
func locate(ls []string, v string) (Fact, bool) {
	for i, l := range ls {
		k := strings.Index(l, v)
		if k < 0 {
			continue
		}
		f := Fact{Before: l[:k], After: l[k+len(v):], Value: v}
		if i > 0 {
			f.Prev = ls[i-1]
		}
		got, ok := f.read(ls)
		return f, ok && got == v
	}
	return Fact{}, false
}

// read finds the fact's value on a page's lines: every line shaped like the one the run read
// it from must give the same value, and there must be at least one.
func (f Fact) read(ls []string) (string, bool) {
	value, found := "", false
	for i, l := range ls {
		if len(l) < len(f.Before)+len(f.After) || !strings.HasPrefix(l, f.Before) || !strings.HasSuffix(l, f.After) {
			continue
		}
		if prev := ""; i > 0 {
			prev = ls[i-1]
			if prev != f.Prev {
				continue
			}
		} else if f.Prev != "" {
			continue
		}
		v := l[len(f.Before) : len(l)-len(f.After)]
		if v == "" || found && v != value {
			return "", false
		}
		value, found = v, true
	}
	return value, found
}

// Rederive reads the answer's facts from the current page and fills the template. It fails
// when a fact is missing, ambiguous or different from what the run read.
func (a Answer) Rederive(pg *pagemodel.Page) (string, bool) {
	ls := lines(pg)
	var b strings.Builder
	for i, part := range a.Parts {
		if i%2 == 0 {
			b.WriteString(part)
			continue
		}
		f := a.Facts[i/2]
		v, ok := f.read(ls)
		if !ok || v != f.Value {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// wordSpans are the byte ranges of the text's words (runs without spaces).
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// trimSpan drops the sentence punctuation around a span.
func trimSpan(s string, start, end int) (int, int) {
	const punct = `.,;:!?()[]"'«»“”`
	for start < end {
		r, n := utf8.DecodeRuneInString(s[start:end])
		if !strings.ContainsRune(punct, r) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !strings.ContainsRune(punct, r) {
			break
		}
		end -= n
	}
	return start, end
}

// factLike is a span that can carry information: a number, or a word of some length.
func factLike(v string) bool {
	letters := 0
	for _, r := range v {
		switch {
		case unicode.IsDigit(r):
			return true
		case unicode.IsLetter(r):
			letters++
		}
	}
	return letters >= minFactRunes
}

func anyClaimed(c []bool) bool {
	for _, b := range c {
		if b {
			return true
		}
	}
	return false
}
