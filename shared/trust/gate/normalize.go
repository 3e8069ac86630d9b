package gate

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Normalize folds text for matching, so that what reads the same matches the same (Unicode TR39,
// "skeleton"): compatibility forms become plain ones (NFKC: fullwidth Ｐａｙ, mathematical 𝐏𝐚𝐲,
// ligatures, circled letters), case is folded, characters that render as nothing (format
// characters such as zero-width spaces, joiners and the soft hyphen, other default-ignorable
// code points, variation selectors) and combining marks are removed, and letters of other
// scripts that look like Latin ones (Cyrillic а, Greek ο, small capitals ᴘ) become those.
// Folding is applied to page text and to every term alike, so words of any script still match
// their own spelling.
func Normalize(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if invisible(r) {
			continue
		}
		if l, ok := confusables[r]; ok {
			r = l
		}
		b.WriteRune(r)
	}
	return b.String()
}

// invisible reports whether r renders as nothing (or only as a mark on its neighbour), so that
// inserting it between letters changes no word a reader sees.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		fillers[r]
}

// fillers are blank letters and symbols that browsers render as empty space of no width or as a
// blank, which the categories above do not cover.
var fillers = map[rune]bool{
	'\u115F': true, '\u1160': true, '\u3164': true, '\uFFA0': true, // Hangul fillers
	'\u2800': true, // braille pattern blank
}

// confusables maps lower-case letters that look like a Latin letter to it: the lower-case
// Cyrillic, Greek and Armenian look-alikes and the Latin small capitals of Unicode's
// confusables.txt, and the lower-case forms of capitals that look alike (Cyrillic В, Н, М, Т, К
// and Greek Β, Η, Μ, Ν, Κ, Ζ), because text is lower-cased first. Letters with marks need no
// entry: their marks are removed first (NFD). A digit zero among letters reads as o (tokens).
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'һ': 'h', 'н': 'h', 'і': 'i',
	'ј': 'j', 'к': 'k', 'ӏ': 'l', 'м': 'm', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'ѕ': 's', 'т': 't',
	'у': 'y', 'ԝ': 'w', 'х': 'x', 'ъ': 'b', 'ь': 'b',
	// Greek
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'h', 'ι': 'i', 'κ': 'k', 'μ': 'm', 'ν': 'v', 'ο': 'o', 'ρ': 'p',
	'τ': 't', 'υ': 'u', 'χ': 'x', 'ζ': 'z', 'ϲ': 'c', 'ϳ': 'j', 'ς': 'c',
	// Armenian
	'օ': 'o', 'ս': 'u', 'հ': 'h', 'ո': 'n', 'ց': 'g', 'զ': 'q',
	// Latin small capitals and other Latin look-alikes
	'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f', 'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i', 'ᴊ': 'j',
	'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u',
	'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z', 'ɑ': 'a', 'ɡ': 'g', 'ı': 'i', 'ɩ': 'i', 'ȷ': 'j', 'ɒ': 'a',
	'ꞵ': 'b', 'ƿ': 'p', 'ø': 'o', 'ð': 'd', 'đ': 'd', 'ħ': 'h', 'ł': 'l', 'ŧ': 't', 'ƀ': 'b',
}
