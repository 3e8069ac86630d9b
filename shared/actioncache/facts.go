package actioncache

import (
	"hash/fnv"
	"strings"
	"unicode"

	"github.com/screenagent/backend/shared/pagemodel"
)

// A fact the model read on one page and used later (in the task's result, or typed into a
// field of another page) must be read by the model on a repeat too: replaying the page where it
// was read would leave the model without it ("I no longer know the job title"), and replaying
// the step that used it would repeat the old value. The trail keeps, for each step, the words
// its page showed as a small Bloom filter (the page itself is not kept); when the task completes,
// Finish takes the words of the result and of each typed value that the task did not give and
// that the page where they were used does not show: those came from an earlier page. Every
// earlier page that showed one of them, and the step that used them, become holes of the entry.
// A false positive of the filter only makes one more hole: the model decides that step.

// The filter rides on the task's item, which every step rewrites: 512 bytes a step keep a
// 40-step task's trail near 27 KB, with about 3% false positives at 500 distinct words and 14%
// at 1,000 (a false positive costs one hole). A step served from the cache keeps none: it is no
// hole of its entry, so no fact was read on it that the entry's run used.
const (
	seenBits   = 4096
	seenHashes = 3
)

// seenWords is the set of the page's words (title, text lines, element texts) but the task's
// own, the value of a secret field and any typed secret value (redact).
func seenWords(pg *pagemodel.Page, task string, redact func(string) string) []byte {
	set := make([]byte, seenBits/8)
	given := map[string]bool{}
	for _, w := range words(task) {
		given[w] = true
	}
	add := func(s string) {
		if redact != nil {
			s = redact(s)
		}
		for _, w := range words(s) {
			if given[w] {
				continue
			}
			for _, bit := range wordBits(w) {
				set[bit/8] |= 1 << (bit % 8)
			}
		}
	}
	add(pg.Title())
	for _, l := range pg.Texts() {
		add(l)
	}
	for _, e := range pg.Elements() {
		if !pg.Secret(e.ID) {
			add(e.Text)
		}
	}
	return set
}

// shows reports whether the set (may) hold the word; an absent set holds nothing.
func shows(set []byte, w string) bool {
	if len(set) != seenBits/8 {
		return false
	}
	for _, bit := range wordBits(w) {
		if set[bit/8]&(1<<(bit%8)) == 0 {
			return false
		}
	}
	return true
}

func wordBits(w string) [seenHashes]uint32 {
	h := fnv.New64a()
	h.Write([]byte(w))
	sum := h.Sum64()
	h1, h2 := uint32(sum), uint32(sum>>32)|1
	var out [seenHashes]uint32
	for i := range out {
		out[i] = (h1 + uint32(i)*h2) % seenBits
	}
	return out
}

// words are the text's words as facts are compared: lower case, split at anything but letters
// and digits; a word of letters needs minFactRunes of them to carry information, a number any.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if factLike(w) {
			out = append(out, w)
		}
	}
	return out
}

// heardWords are the words of what the task was told apart from its text and its pages (the
// user's messages, web search findings), but the task's own.
func heardWords(heard []string, task string) map[string]bool {
	given := map[string]bool{}
	for _, w := range words(task) {
		given[w] = true
	}
	out := map[string]bool{}
	for _, text := range heard {
		for _, w := range words(text) {
			if !given[w] {
				out[w] = true
			}
		}
	}
	return out
}

// usesHeard says why an action, or an answer, must be the model's because it uses what the task
// was told ("" when it does not): a repeat is told again, maybe otherwise (another answer of the
// user, a newer search result), and replaying this run's value would repeat the old one.
func usesHeard(text string, heard map[string]bool) bool {
	for _, w := range words(text) {
		if heard[w] {
			return true
		}
	}
	return false
}

// markFactReading makes holes of the steps that read a fact a later step used, and of the steps
// that used one: the step that completed the task with answer, and any step that typed a value.
// A served step is neither: it keeps no words.
func markFactReading(steps []trailStep, answer, task string) {
	given := map[string]bool{}
	for _, w := range words(task) {
		given[w] = true
	}
	for j := range steps {
		if steps[j].Served {
			// Its entry's run judged it: it used no fact of an earlier page.
			continue
		}
		uses := steps[j].Typed
		if j == len(steps)-1 && answer != "" {
			uses = append(append([]string(nil), uses...), answer)
		}
		fresh := unseen(uses, given, steps[j].Seen)
		read := false
		for i := 0; i < j && len(fresh) > 0; i++ {
			for _, w := range fresh {
				if shows(steps[i].Seen, w) {
					steps[i].makeHole(orReason(steps[i].Skip, "its page showed a fact that a later step used"))
					read = true
					break
				}
			}
		}
		if read {
			steps[j].makeHole(orReason(steps[j].Skip, "it used a fact read on an earlier page"))
		}
	}
}

// unseen are the words of the texts that the task does not give and the page does not show.
func unseen(texts []string, given map[string]bool, seen []byte) []string {
	var out []string
	for _, text := range texts {
		for _, w := range words(text) {
			if !given[w] && !shows(seen, w) {
				out = append(out, w)
			}
		}
	}
	return out
}
