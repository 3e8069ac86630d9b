package gate

import (
	"strings"

	"github.com/screenagent/backend/shared/trust/fold"
)

// Normalize folds text for matching, so that what reads the same matches the same: package fold
// (case, compatibility forms, look-alike letters, character references, invisible characters and
// combining marks), which the rest of shared/trust folds untrusted text with, plus the blank
// fillers browsers render as nothing and the Latin small capitals (ᴘᴀʏ), which fold keeps. Folding is applied to page text and to every term alike,
// so words of any script still match their own spelling.
func Normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if fillers[r] {
			return -1
		}
		if l, ok := smallCapitals[r]; ok {
			return l
		}
		return r
	}, fold.String(s))
}

// fillers are blank letters and symbols that browsers render as empty space of no width or as a
// blank, which fold keeps.
var fillers = map[rune]bool{
	'\u115F': true, '\u1160': true, '\u3164': true, '\uFFA0': true, // Hangul fillers
	'\u2800': true, // braille pattern blank
}

// smallCapitals are the Latin small capitals and other Latin look-alikes of Unicode's
// confusables.txt that fold does not map.
var smallCapitals = map[rune]rune{
	'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f', 'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i', 'ᴊ': 'j',
	'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u',
	'ᴠ': 'v', 'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z', 'ɑ': 'a', 'ɡ': 'g', 'ɩ': 'i', 'ȷ': 'j', 'ɒ': 'a', 'ꞵ': 'b', 'ƿ': 'p',
}
