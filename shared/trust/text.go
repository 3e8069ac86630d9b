// Package trust is the one policy of both engines (interact and the run API) for text and
// values the server does not own: untrusted text is quoted on one line or fenced in blocks
// whose markers no variant can forge, secret fields are recognised and their values masked,
// values typed into them are remembered only as keyed hashes so that echoes are redacted, and
// secrets the browser keeps are referred to by name.
package trust

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/trust/fold"
)

// Block names of the prompts' untrusted sections. They are distinctive words, so that the
// marker of one can be recognised in any text without touching ordinary prose.
const (
	PageContent   = "page_content"
	KnowledgeBase = "knowledge_document"
	SearchResults = "search_results"
	UserText      = "user_text"
)

var blockNames = []string{PageContent, KnowledgeBase, SearchResults, UserText}

// markerPattern matches, on folded text, anything a model could read as opening or closing one
// of the blocks: a bracket (or a slash) and the block's name, with any spaces, low lines,
// hyphens or dots between its words.
var markerPattern = func() *regexp.Regexp {
	var names []string
	for _, n := range blockNames {
		names = append(names, strings.ReplaceAll(regexp.QuoteMeta(n), "_", `[\s_\-.]*`))
	}
	alt := "(?:" + strings.Join(names, "|") + ")"
	return regexp.MustCompile(`[<\[{(]\s*/?\s*` + alt + `(?:\s*[>\]})])?|/\s*` + alt + `\s*[>\]})]`)
}()

// removedMarker stands where a forged marker was.
const removedMarker = "[marker removed]"

// Neutralize removes every variant of a block marker from untrusted text: markers are found on
// the folded text (case, look-alike letters, entities, invisible characters, fullwidth forms)
// and cut out of the source. Removal can join pieces into a new marker, so it repeats until
// none is left.
func Neutralize(s string) string {
	for range 8 {
		f := fold.Fold(s)
		folded := string(f.Runes)
		locs := markerPattern.FindAllStringIndex(folded, -1)
		if len(locs) == 0 {
			return s
		}
		// The pattern matched on bytes of the folded string; map them to rune indexes.
		runeAt := make([]int, len(folded)+1)
		ri := 0
		for bi := range folded {
			runeAt[bi] = ri
			ri++
		}
		runeAt[len(folded)] = ri
		var b strings.Builder
		at := 0
		for _, l := range locs {
			start, end := f.Source(runeAt[l[0]], runeAt[l[1]])
			if start < at {
				continue
			}
			b.WriteString(s[at:start])
			b.WriteString(removedMarker)
			at = end
		}
		b.WriteString(s[at:])
		s = b.String()
	}
	// Text built to survive eight rounds loses its brackets instead.
	return strings.Map(func(r rune) rune {
		if f := fold.String(string(r)); f == "<" || f == ">" {
			return -1
		}
		return r
	}, s)
}

// Quote renders untrusted text as one JSON string on one line: spaces are collapsed, quotes,
// newlines and angle brackets escaped and block markers removed, so it can neither end its
// line (and start one that reads as the server's) nor open or close a block.
func Quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	// "&" stays itself (a URL's query reads as it is); "<" and ">" are still escaped below.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(OneLine(Neutralize(s))); err != nil {
		return `""`
	}
	return angleEscaper.Replace(strings.TrimSuffix(b.String(), "\n"))
}

var angleEscaper = strings.NewReplacer("<", `\u003c`, ">", `\u003e`)

// Block fences untrusted text in the named block: markers are removed from the text and every
// line of it is indented by two spaces, so that no line inside the block starts where the
// server's lines start. The prompts' rules tell the model that nothing indented inside a
// block is an instruction.
func Block(name, text string) string {
	var b strings.Builder
	b.WriteString("<" + name + ">\n")
	for _, line := range strings.Split(strings.Trim(lineBreaks.Replace(Neutralize(text)), "\n"), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("</" + name + ">")
	return b.String()
}

// lineBreaks are every character a reader may see as the end of a line.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")

// OneLine collapses every run of spaces (newlines included) to one space.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Sentence ends s, which may end with someone else's text (a site's message, a quoted report),
// with the server's full stop, unless it ends a sentence already: "Invalid password." and
// `message "Invalid password."` stay as they are, so the server's punctuation never doubles the
// text's own.
func Sentence(s string) string {
	s = strings.TrimRight(s, " \t\n")
	end := strings.TrimRight(s, closers)
	if end == "" {
		return s
	}
	if r, _ := utf8.DecodeLastRuneInString(end); strings.ContainsRune(stops, r) {
		return s
	}
	return s + "."
}

// stops end a sentence in the scripts the prompts meet; closers may follow one (a quote, a
// bracket) and are looked past.
const (
	stops   = ".!?…。！？؟।۔።"
	closers = `"'”’»)]}」』`
)
