package actioncache

import (
	"net/url"
	"sort"
	"strings"
	"unicode"
)

// TaskKey is the task's text as the cache compares it: case, spacing, typographic quotes and
// trailing punctuation do not make another task; every word and value the user gave does.
func TaskKey(task string) string {
	return strings.TrimRight(strings.ToLower(taskText(task)), ".!;, ")
}

// taskText is the task's text as TaskKey reads it, in its own case.
func taskText(task string) string {
	r := strings.NewReplacer("“", `"`, "”", `"`, "„", `"`, "‘", "'", "’", "'", "«", `"`, "»", `"`)
	return strings.Join(strings.Fields(r.Replace(task)), " ")
}

// Span is where a value stands in a task's text (taskText, in runes). Two tasks of one
// TaskKey have their words at the same places, so a span of one points at the same words of
// the other, in that task's case.
type Span struct {
	Start int `json:"start"`
	Len   int `json:"len"`
}

// spanOf finds the value in the task's text; it must stand there once, as whole words.
func spanOf(task, value string) (Span, bool) {
	text, v := []rune(taskText(task)), []rune(value)
	found := Span{Start: -1}
	for i := 0; len(v) > 0 && i+len(v) <= len(text); i++ {
		if string(text[i:i+len(v)]) != value || !edge(text, i-1) || !edge(text, i+len(v)) {
			continue
		}
		if found.Start >= 0 {
			return Span{}, false
		}
		found = Span{Start: i, Len: len(v)}
	}
	return found, found.Start >= 0
}

// edge reports whether position i of the text is outside it or not a letter or digit, so
// that a value found next to it is not part of a longer word.
func edge(text []rune, i int) bool {
	return i < 0 || i >= len(text) || !unicode.IsLetter(text[i]) && !unicode.IsDigit(text[i])
}

// in is the text at the span in the task's text.
func (s Span) in(task string) (string, bool) {
	text := []rune(taskText(task))
	if s.Start < 0 || s.Len <= 0 || s.Start+s.Len > len(text) {
		return "", false
	}
	return string(text[s.Start : s.Start+s.Len]), true
}

// URLPattern generalises a page address into what stays the same when a task is repeated:
// scheme, host and path, with the path segments and query values that carry numbers (ids,
// dates, session tokens) replaced by "*", query keys sorted, and the fragment dropped.
func URLPattern(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return maskDigits(raw)
	}
	segs := strings.Split(u.EscapedPath(), "/")
	for i, s := range segs {
		if hasDigit(s) {
			segs[i] = "*"
		}
	}
	out := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.Join(segs, "/")
	q := u.Query()
	if len(q) == 0 {
		return out
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := strings.Join(q[k], ",")
		if hasDigit(v) {
			v = "*"
		}
		parts = append(parts, k+"="+v)
	}
	return out + "?" + strings.Join(parts, "&")
}

// maskDigits replaces every run of digits by "#": times, counters, dates and prices vary
// between runs of one task without making its page another page.
func maskDigits(s string) string {
	if !hasDigit(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	inRun := false
	for _, r := range s {
		if unicode.IsDigit(r) {
			if !inRun {
				b.WriteByte('#')
			}
			inRun = true
			continue
		}
		inRun = false
		b.WriteRune(r)
	}
	return b.String()
}

func hasDigit(s string) bool {
	for _, r := range s {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
