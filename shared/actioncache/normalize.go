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
	r := strings.NewReplacer("“", `"`, "”", `"`, "„", `"`, "‘", "'", "’", "'", "«", `"`, "»", `"`)
	s := strings.Join(strings.Fields(strings.ToLower(r.Replace(task))), " ")
	return strings.TrimRight(s, ".!;, ")
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
