// Package fold reduces text to the form a reader sees, for matching markers and secrets in
// text the server did not write: letter case, compatibility forms (fullwidth, mathematical
// letters), look-alike letters of other scripts, HTML character references and invisible
// characters are all folded away. Each folded rune keeps the byte range of the source it came
// from, so a match in the folded text can be cut out of the source.
package fold

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Text is a folded string with, for each of its runes, where in the source it came from.
type Text struct {
	// Runes is the folded text.
	Runes []rune
	// Start and End are the source byte range of Runes[i].
	Start, End []int
}

// String returns the folded text.
func (t Text) String() string { return string(t.Runes) }

// Source returns the source byte range of folded runes [i, j).
func (t Text) Source(i, j int) (int, int) {
	if i >= j {
		if i < len(t.Start) {
			return t.Start[i], t.Start[i]
		}
		return -1, -1
	}
	return t.Start[i], t.End[j-1]
}

// String folds s (see Fold) and returns the folded text only.
func String(s string) string { return Fold(s).String() }

// maxEntity bounds how far a character reference may reach ("&CounterClockwiseContourIntegral;").
const maxEntity = 40

// Fold folds s: one pass of HTML character references is decoded, invisible characters
// (format characters such as zero-width spaces and joiners, combining marks, variation
// selectors) are dropped, compatibility forms are normalised (NFKC: fullwidth "ｐ", "𝐩"),
// look-alike letters of Cyrillic, Greek and other scripts become the Latin letter they
// imitate, angle-bracket look-alikes become "<" and ">", every space becomes " " and letters
// are lower-cased.
func Fold(s string) Text {
	t := Text{Runes: make([]rune, 0, len(s)), Start: make([]int, 0, len(s)), End: make([]int, 0, len(s))}
	for i := 0; i < len(s); {
		seg, n := s[i:], 0
		var decoded string
		if s[i] == '&' {
			if end := strings.IndexByte(seg[:min(len(seg), maxEntity)], ';'); end > 1 {
				if d := html.UnescapeString(seg[:end+1]); d != seg[:end+1] {
					decoded, n = d, end+1
				}
			}
		}
		if n == 0 {
			_, n = utf8.DecodeRuneInString(seg)
			decoded = seg[:n]
		}
		// NFKD then dropping the marks: "é" reads as "e", "ｐ" and "𝐩" as "p".
		for _, r := range norm.NFKD.String(decoded) {
			if r = foldRune(r); r >= 0 {
				t.Runes = append(t.Runes, r)
				t.Start = append(t.Start, i)
				t.End = append(t.End, i+n)
			}
		}
		i += n
	}
	return t
}

// foldRune maps one (normalised) rune to what it reads as, -1 for one that shows nothing.
func foldRune(r rune) rune {
	switch {
	case r == utf8.RuneError:
		return r
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r),
		unicode.Is(unicode.Variation_Selector, r), r == '\u115f', r == '\u1160', r == '\u3164', r == '\uffa0':
		return -1
	case unicode.IsSpace(r):
		return ' '
	}
	if m, ok := lookalike[r]; ok {
		return m
	}
	return unicode.ToLower(r)
}

// lookalike maps letters and signs that render like a Latin letter or an angle bracket to it.
// It covers the confusables of Cyrillic, Greek, Armenian and Latin extensions that survive
// NFKC (Unicode's confusables.txt, the single-character Latin-target entries).
var lookalike = map[rune]rune{
	// Cyrillic
	'а': 'a', 'А': 'a', 'в': 'b', 'В': 'b', 'с': 'c', 'С': 'c', 'ԁ': 'd', 'е': 'e', 'Е': 'e', 'ё': 'e',
	'һ': 'h', 'Н': 'h', 'н': 'h', 'і': 'i', 'І': 'i', 'ї': 'i', 'ј': 'j', 'Ј': 'j', 'к': 'k', 'К': 'k',
	'ӏ': 'l', 'Ӏ': 'l', 'м': 'm', 'М': 'm', 'о': 'o', 'О': 'o', 'р': 'p', 'Р': 'p', 'ԛ': 'q', 'ѕ': 's',
	'Ѕ': 's', 'т': 't', 'Т': 't', 'џ': 'u', 'ѵ': 'v', 'ԝ': 'w', 'Ԝ': 'w', 'х': 'x', 'Х': 'x', 'у': 'y',
	'У': 'y', 'ү': 'y', 'Ү': 'y', 'ʐ': 'z', 'ɡ': 'g', 'ո': 'n', 'ս': 'u', 'օ': 'o', 'Օ': 'o', 'ց': 'g',
	'ɑ': 'a', 'ı': 'i', 'ȷ': 'j', 'ɩ': 'i', 'ʋ': 'u', 'ℓ': 'l',
	// Greek
	'α': 'a', 'Α': 'a', 'Β': 'b', 'β': 'b', 'ϲ': 'c', 'Ϲ': 'c', 'ε': 'e', 'Ε': 'e', 'Η': 'h', 'ι': 'i',
	'Ι': 'i', 'κ': 'k', 'Κ': 'k', 'Μ': 'm', 'ν': 'v', 'Ν': 'n', 'ο': 'o', 'Ο': 'o', 'ρ': 'p', 'Ρ': 'p',
	'τ': 't', 'Τ': 't', 'υ': 'u', 'Χ': 'x', 'χ': 'x', 'γ': 'y', 'Υ': 'y', 'Ζ': 'z', 'ϳ': 'j',
	// Angle brackets and their look-alikes
	'‹': '<', '›': '>', '⟨': '<', '⟩': '>', '〈': '<', '〉': '>', '˂': '<', '˃': '>',
	'ᐸ': '<', 'ᐳ': '>', '❮': '<', '❯': '>', '⧼': '<', '⧽': '>', '«': '<', '»': '>',
	// Slashes, low lines and hyphens
	'⁄': '/', '∕': '/', '⧸': '/', '╱': '/', 'ⁿ': 'n', '‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-',
	'−': '-', 'ˍ': '_',
}
