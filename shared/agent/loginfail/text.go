package loginfail

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

const (
	// maxSentenceRunes: error messages are short; longer sentences are prose (articles,
	// terms), never the message a login form shows, and are not matched at all.
	maxSentenceRunes = 300
	// maxSentences bounds the work on one page: a page is untrusted and may be huge.
	maxSentences = 10000
)

// fold is the form in which sentences are matched: lower case, without diacritics
// (NFKD, marks dropped, so "Ungültig" is "ungultig" and full-width "ＩＤ" is "id"), ß as
// ss, typographic apostrophes as ', and every run of anything that is not a letter, a
// digit, an apostrophe, a hyphen or @ as one space, with one space at each end. Patterns
// therefore see words separated by single spaces and can use a space as a word boundary,
// which works for every script (regexp's \b knows only ASCII).
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r == 'ß' || r == 'ẞ':
			b.WriteString("ss")
		case r == '\'' || r == '’' || r == '‘' || r == 'ʼ' || r == '`':
			b.WriteByte('\'')
		case r == '@':
			b.WriteByte('@')
		case unicode.Is(unicode.Pd, r):
			b.WriteByte('-')
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// window is a gap of up to N characters between two words of a pattern, written
// \b.{0,N}\b.
var window = regexp.MustCompile(`\\b\.\{0,(\d+)\}\\b`)

// foldPattern brings a pattern's source to the form of folded text without touching its
// syntax: the same decomposition, marks, case and letter mappings as fold, and \b (a word
// edge) as a space. A window between two words becomes "a space, then optionally up to N
// characters and a space", so that adjacent words, whose single space both edges would
// otherwise need, match too. Patterns are written in lower case with only lower-case
// escapes.
func foldPattern(p string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(p) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ß':
			b.WriteString("ss")
		case r == '’':
			b.WriteByte('\'')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return strings.ReplaceAll(window.ReplaceAllString(b.String(), ` (?:.{0,$1} )?`), `\b`, " ")
}

// sentences calls fn with each sentence of text, trimmed and with its whitespace
// collapsed, until fn returns false or the budget runs out. A sentence ends at a line
// break, at . ! ? followed by a space or the end, and at the CJK full stops, which need
// no space after them; "user@example.com" or "3.5" stay whole.
func sentences(text string, budget *int, fn func(string) bool) bool {
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		end := -1
		switch r {
		case '\n', '\r':
			end = i
		case '.', '!', '?':
			if next := i + size; next == len(text) || text[next] == ' ' || text[next] == '\t' ||
				text[next] == '\n' || text[next] == '\r' {
				end = next
			}
		case '。', '！', '？', '｡':
			end = i + size
		}
		i += size
		if end >= 0 {
			if !emit(text[start:end], budget, fn) {
				return false
			}
			start = i
		}
	}
	return emit(text[start:], budget, fn)
}

func emit(s string, budget *int, fn func(string) bool) bool {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return true
	}
	if *budget <= 0 {
		return false
	}
	*budget--
	return fn(s)
}

// statement is the part of a sentence that states something: a sentence that ends in a
// question mark is a link or a hint ("Forgot your password?", "Wrong password? Reset
// it"), so its last clause is dropped, and what came before it ("Invalid email or
// password, forgot your password?") is kept.
func statement(s string) string {
	q := strings.TrimRight(s, " ")
	if !strings.HasSuffix(q, "?") && !strings.HasSuffix(q, "？") && !strings.HasPrefix(q, "¿") {
		return s
	}
	cut := strings.LastIndexAny(q, ",;:—–，、；：")
	if dash := strings.LastIndex(q, " - "); dash > cut {
		cut = dash
	}
	if cut < 0 {
		return ""
	}
	return strings.TrimSpace(q[:cut])
}

// runeCountAtMost reports whether s has at most n runes without counting all of a long s.
func runeCountAtMost(s string, n int) bool {
	if len(s) <= n {
		return true
	}
	count := 0
	for range s {
		if count++; count > n {
			return false
		}
	}
	return true
}
