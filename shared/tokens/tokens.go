// Package tokens estimates how many o200k_base tokens a text costs, for every budget the
// backend keeps (the page view, search summaries, prompt size) without a BPE vocabulary.
package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Estimate approximates the o200k_base token count of s without a BPE vocabulary.
//
// It mimics o200k's pre-tokenizer (words with one absorbed leading character, numbers in
// groups of three, punctuation runs, newline runs) and charges each piece its average
// token count, measured per script on real pages (shared/agent/page/estimate_test.go holds the calibration
// against the exact tokenizer). Costs are summed in thousandths and rounded once, so the
// error of single words averages out over a page.
//
// Lines can be priced one by one: lines without leading or trailing whitespace, joined
// with "\n", never estimate higher than the sum of their LineMilli, which is what lets a
// budgeter pick lines without rebuilding the text.
func Estimate(s string) int {
	return (Milli(s) + 500) / 1000
}

// Milli is Estimate in thousandths of a token, before rounding: rounded counts of lines do
// not add up to the count of their text, these do.
func Milli(s string) int {
	var milli int
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch c := classify(r); {
		case c == clsSpace:
			i = spaceRun(s, i, &milli)
		case c == clsDigit:
			n := 0
			for i < len(s) {
				r, size := decode(s, i)
				if classify(r) != clsDigit {
					break
				}
				n++
				i += size
			}
			milli += (n + 2) / 3 * 1000
		case c == clsPunct:
			i = punctRun(s, i, &milli)
		default:
			i = word(s, i+size, c, 0, &milli)
		}
	}
	return milli
}

// LineMilli is Milli(line + "\n") without building that string: the line break is
// a token of its own unless it follows punctuation, which takes it in.
func LineMilli(line string) int {
	m := Milli(line)
	if r, _ := utf8.DecodeLastRuneInString(line); line == "" || classify(r) != clsPunct {
		m += 1000
	}
	return m
}

// Rune classes: the pre-tokenizer's categories, with letters split by script because
// scripts differ several-fold in characters per token.
const (
	clsSpace = iota
	clsDigit
	clsPunct
	clsLatin    // ASCII letters
	clsLatinExt // accented Latin
	clsCyrillic
	clsGreek
	clsArmHeb // Armenian, Hebrew
	clsArabic
	clsIndic
	clsThai
	clsHangul
	clsKana
	clsHan
	clsLetter // any other letter or mark
	clsUpper  // ASCII upper-case letter; only used to split camelCase
)

// perRune is the expected tokens (in thousandths) each letter adds to a word that is not
// all ASCII (those are priced by latinWord); any word costs at least one token. Measured
// on the testdata pages.
var perRune = [...]int{
	clsLatinExt: 500,
	clsCyrillic: 270,
	clsGreek:    420,
	clsArmHeb:   400,
	clsArabic:   300,
	clsIndic:    350,
	clsThai:     420,
	clsHangul:   650,
	clsKana:     600,
	clsHan:      700,
	clsLetter:   450,
	clsLatin:    200,
}

// latinWord is the expected token count (thousandths) of an ASCII word by letter count,
// measured on English pages; longer words grow by latinLong per letter.
var latinWord = [...]int{0, 1000, 1000, 1010, 1010, 1050, 1080, 1120, 1180, 1250, 1250, 1350, 1400, 1500, 1500}

const latinLong = 300

// punctPrefix is what a single punctuation mark adds to the word it is glued to
// (`>Closed`, `/deals`): o200k has few such pieces, so the mark mostly stays a token.
const punctPrefix = 550

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			t[c] = clsSpace
		case c >= '0' && c <= '9':
			t[c] = clsDigit
		case c >= 'a' && c <= 'z':
			t[c] = clsLatin
		case c >= 'A' && c <= 'Z':
			t[c] = clsUpper
		default:
			t[c] = clsPunct
		}
	}
	return t
}()

func decode(s string, i int) (rune, int) {
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func classify(r rune) int {
	if r < utf8.RuneSelf {
		return int(asciiClass[r])
	}
	switch {
	case r == 0x85 || r == 0xA0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 || r == 0x202F || r == 0x205F || r == 0x3000:
		return clsSpace
	case r >= 0xC0 && r <= 0x24F && r != 0xD7 && r != 0xF7, r >= 0x1E00 && r <= 0x1EFF:
		return clsLatinExt
	case r >= 0x300 && r <= 0x36F:
		return clsLetter
	case r >= 0x370 && r <= 0x3FF, r >= 0x1F00 && r <= 0x1FFF:
		return clsGreek
	case r >= 0x400 && r <= 0x52F:
		return clsCyrillic
	case r >= 0x530 && r <= 0x5FF:
		return clsArmHeb
	case r >= 0x600 && r <= 0x6FF, r >= 0x750 && r <= 0x77F, r >= 0x8A0 && r <= 0x8FF, r >= 0xFB50 && r <= 0xFDFF, r >= 0xFE70 && r <= 0xFEFF:
		if (r >= 0x660 && r <= 0x669) || (r >= 0x6F0 && r <= 0x6F9) {
			return clsDigit
		}
		if isArabicPunct(r) {
			return clsPunct
		}
		return clsArabic
	case r >= 0x900 && r <= 0xDFF:
		if r == 0x964 || r == 0x965 {
			return clsPunct
		}
		if (r&0x7F) >= 0x66 && (r&0x7F) <= 0x6F {
			return clsDigit
		}
		return clsIndic
	case r >= 0xE00 && r <= 0xEFF:
		return clsThai
	case r >= 0x1100 && r <= 0x11FF, r >= 0x3130 && r <= 0x318F, r >= 0xAC00 && r <= 0xD7AF:
		return clsHangul
	case r >= 0x3040 && r <= 0x30FF && r != 0x30FB, r >= 0xFF66 && r <= 0xFF9F:
		return clsKana
	case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF, r >= 0xF900 && r <= 0xFAFF, r >= 0x20000 && r <= 0x3FFFF:
		return clsHan
	case r >= 0xFF10 && r <= 0xFF19:
		return clsDigit
	case r >= 0xFF21 && r <= 0xFF3A, r >= 0xFF41 && r <= 0xFF5A:
		return clsLatinExt
	case r < 0x2000:
		// Remaining letters of the small alphabets (Georgian, Ethiopic, ...) and the
		// Latin-1 symbols; the general test is slower, so it comes last.
		if isLetter(r) {
			return clsLetter
		}
		return clsPunct
	case r >= 0x2000 && r <= 0x2BFF, r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFF65, r >= 0x1F000 && r <= 0x1FAFF:
		return clsPunct
	}
	if isLetter(r) {
		return clsLetter
	}
	return clsPunct
}

// Unspaced reports whether r belongs to a script whose words are a few characters written
// together (Han, Kana, Thai; Hangul compounds), where a run of letters is not one term: the
// page view's query matching splits such runs differently.
func Unspaced(r rune) bool {
	switch classify(r) {
	case clsHan, clsKana, clsThai, clsHangul:
		return true
	}
	return false
}

// symbolCost prices a non-ASCII symbol: common ones (CJK punctuation, typographic quotes
// and dashes, currency) have tokens of their own, rarer ones split into bytes.
func symbolCost(r rune, size int) int {
	switch {
	case size == 2, r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFF65, r >= 0x2010 && r <= 0x2027, r == 0x964:
		return 1000
	case size == 3:
		return 1500
	}
	return 2000
}

func isArabicPunct(r rune) bool {
	return r == 0x60C || r == 0x61B || r == 0x61F || r == 0x6D4 || r == 0x66A || r == 0x66B || r == 0x66C || r == 0xFD3E || r == 0xFD3F
}

// spaceRun prices a whitespace run starting at i and returns where it ends. A run with
// a line break is one token; otherwise all but the last space form one token, and the
// last one is absorbed by the following word or punctuation (not by a number).
func spaceRun(s string, i int, milli *int) int {
	n, newline := 0, false
	for i < len(s) {
		r, size := decode(s, i)
		if classify(r) != clsSpace {
			break
		}
		if r == '\n' || r == '\r' {
			newline = true
			n = 0
		} else {
			n++
		}
		i += size
	}
	if newline {
		*milli += 1000
	}
	switch {
	case i >= len(s):
		if n > 0 {
			*milli += 1000
		}
	case n > 1:
		*milli += 1000
		if r, _ := decode(s, i); classify(r) == clsDigit {
			*milli += 1000
		}
	case n == 1:
		if r, _ := decode(s, i); classify(r) == clsDigit {
			*milli += 1000
		}
	}
	return i
}

// punctRun prices a run of punctuation and symbols. ASCII punctuation merges well (`="`,
// `</`, `/>` are single tokens); other symbols (CJK punctuation, emoji, arrows) cost about
// one token each. A single ASCII mark right before a letter joins that word.
func punctRun(s string, i int, milli *int) int {
	start := i
	ascii := 0
	for i < len(s) {
		r, size := decode(s, i)
		if classify(r) != clsPunct {
			break
		}
		if r < utf8.RuneSelf {
			ascii++
		} else {
			*milli += symbolCost(r, size)
		}
		i += size
	}
	if ascii == 1 && i-start == 1 && i < len(s) {
		if r, size := decode(s, i); isWordClass(classify(r)) {
			return word(s, i+size, classify(r), punctPrefix, milli)
		}
	}
	// Line breaks right after punctuation belong to its token (`>\n`, `."\n`).
	for i < len(s) && (s[i] == '\n' || s[i] == '\r' || s[i] == '/') {
		i++
	}
	switch {
	case ascii == 0:
	case ascii <= 3:
		*milli += 1000
	default:
		*milli += 1000 + (ascii-3)*450
	}
	return i
}

func isWordClass(c int) bool { return c >= clsLatin }

// word prices a word whose first rune (of class first) ended just before i, and returns
// where the word ends. Words split where a lower-case ASCII letter meets an upper-case
// one, as o200k's pattern does for camelCase.
func word(s string, i int, first int, extra int, milli *int) int {
	letters := 1
	asciiOnly := first == clsLatin || first == clsUpper
	cost := runeCost(first)
	prevLower := first == clsLatin
	for i < len(s) {
		r, size := decode(s, i)
		c := classify(r)
		if !isWordClass(c) {
			// An apostrophe inside an English word (don't, it's) stays in the word.
			if r == '\'' && asciiOnly && i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z' {
				i++
				continue
			}
			break
		}
		if c == clsUpper && prevLower {
			break
		}
		prevLower = c == clsLatin
		if c != clsLatin && c != clsUpper {
			asciiOnly = false
		}
		cost += runeCost(c)
		letters++
		i += size
	}
	*milli += extra
	if asciiOnly {
		if letters < len(latinWord) {
			*milli += latinWord[letters]
		} else {
			*milli += latinWord[len(latinWord)-1] + (letters-len(latinWord)+1)*latinLong
		}
		return i
	}
	*milli += max(cost, 1000)
	return i
}

func runeCost(c int) int {
	if c == clsUpper {
		return perRune[clsLatin]
	}
	return perRune[c]
}

func isLetter(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }
