package page

import "bytes"

// scanTag reads a start tag as the tokenizer delimited it ("<a href=x id='3'>") the way
// golang.org/x/net/html reads it, and returns its lower-case name. It calls attr for each
// attribute (the first of duplicates only) with its lower-case name, its raw value and
// the value's byte offsets in raw.
func scanTag(raw []byte, attr func(key, val []byte, start, end int)) string {
	n := len(raw)
	i := 1
	for i < n && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	name := internTag(raw[1:i])
	var seen [32][2]int // the attributes read so far, as offsets in raw
	nSeen := 0
	var keyBuf [64]byte
	for {
		for i < n && isSpace(raw[i]) {
			i++
		}
		if i >= n || raw[i] == '>' {
			return name
		}
		ks := i
		for i < n {
			c := raw[i]
			if c == '=' && i == ks {
				i++
				continue
			}
			if c == '=' || c == '/' || c == '>' || isSpace(c) {
				break
			}
			i++
		}
		ke := i
		vs, ve := i, i
		for i < n && isSpace(raw[i]) {
			i++
		}
		if i < n {
			switch c := raw[i]; {
			case c == '/':
				i++
			case c == '=':
				i++
				for i < n && isSpace(raw[i]) {
					i++
				}
				switch {
				case i >= n || raw[i] == '>':
				case raw[i] == '"' || raw[i] == '\'':
					q := raw[i]
					vs = i + 1
					ve = vs
					for ve < n && raw[ve] != q {
						ve++
					}
					i = min(ve+1, n)
				default:
					vs = i
					for i < n && !isSpace(raw[i]) && raw[i] != '>' {
						i++
					}
					ve = i
				}
			}
		}
		if ke == ks {
			continue
		}
		dup := false
		for _, k := range seen[:nSeen] {
			if bytes.EqualFold(raw[k[0]:k[1]], raw[ks:ke]) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if nSeen < len(seen) {
			seen[nSeen] = [2]int{ks, ke}
			nSeen++
		}
		attr(lowerInto(keyBuf[:0], raw[ks:ke]), raw[vs:ve], vs, ve)
	}
}

// endTagName returns the lower-case name of an end tag ("</Div >").
func endTagName(raw []byte) string {
	i := 2
	for i < len(raw) && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	return internTag(raw[min(2, i):i])
}

// knownTags are interned so that reading a tag allocates nothing for its name.
var knownTags = func() map[string]string {
	m := map[string]string{}
	for _, set := range []map[string]bool{voidTags, blockTags, cellTags, rawTags, plainInline, closesP} {
		for t := range set {
			m[t] = t
		}
	}
	for _, t := range []string{"a", "button", "input", "select", "option", "optgroup", "textarea", "label", "span",
		"img", "svg", "path", "form", "table", "tr", "td", "th", "ul", "ol", "li", "dialog", "nav", "main", "body",
		"html", "head", "summary", "details", "legend", "fieldset", "caption", "datalist", "output", "meter", "progress"} {
		m[t] = t
	}
	return m
}()

func internTag(b []byte) string {
	if len(b) > maxTagName {
		b = b[:maxTagName]
	}
	var buf [maxTagName]byte
	l := lowerInto(buf[:0], b)
	if t, ok := knownTags[string(l)]; ok {
		return t
	}
	return string(l)
}

func lowerInto(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
