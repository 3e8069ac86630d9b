package pagemodel

import "bytes"

// tagScanner reads the attributes of a start tag as the tokenizer delimited it
// ("<a href=x id='3'>") the way golang.org/x/net/html reads them: for each attribute (the
// first of duplicates only) its lower-case name, its raw value and the value's byte
// offsets in the tag.
type tagScanner struct {
	raw    []byte
	i      int
	seen   [32][2]int // names read so far, as offsets in raw
	nSeen  int
	keyBuf [64]byte
}

// scanTag starts reading raw and returns what its tag is.
func scanTag(raw []byte) (tagScanner, *tagInfo) {
	i := 1
	for i < len(raw) && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	return tagScanner{raw: raw, i: i}, lookupTag(raw[1:i])
}

// next returns the next attribute; ok is false after the last one. key is only valid
// until the next call.
func (t *tagScanner) next() (key, val []byte, start, end int, ok bool) {
	raw, n := t.raw, len(t.raw)
	for {
		i := t.i
		for i < n && isSpace(raw[i]) {
			i++
		}
		if i >= n || raw[i] == '>' {
			t.i = n
			return nil, nil, 0, 0, false
		}
		ks, ke := i, t.nameEnd(i)
		vs, ve, i := t.value(ke)
		t.i = i
		if ke == ks || t.dup(ks, ke) {
			continue
		}
		return lowerASCII(t.keyBuf[:0], raw[ks:ke]), raw[vs:ve], vs, ve, true
	}
}

// nameEnd is where the attribute name that starts at ks ends: at "=", "/", ">" or a space,
// except that an "=" it starts with is part of it.
func (t *tagScanner) nameEnd(ks int) int {
	raw, n := t.raw, len(t.raw)
	i := ks
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
	return i
}

// value reads what follows an attribute name that ends at i: "=" and a value, quoted or bare, or
// nothing. It returns the value's offsets (empty, at i, for none) and where reading goes on.
func (t *tagScanner) value(i int) (vs, ve, next int) {
	raw, n := t.raw, len(t.raw)
	vs, ve = i, i
	for i < n && isSpace(raw[i]) {
		i++
	}
	if i >= n {
		return vs, ve, i
	}
	switch raw[i] {
	case '/':
		return vs, ve, i + 1
	case '=':
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
	return vs, ve, i
}

// dup reports whether the attribute name raw[ks:ke] was read before, and remembers it.
func (t *tagScanner) dup(ks, ke int) bool {
	for _, k := range t.seen[:t.nSeen] {
		if bytes.EqualFold(t.raw[k[0]:k[1]], t.raw[ks:ke]) {
			return true
		}
	}
	if t.nSeen < len(t.seen) {
		t.seen[t.nSeen] = [2]int{ks, ke}
		t.nSeen++
	}
	return false
}

// endTag returns what the tag of an end tag ("</Div >") is.
func endTag(raw []byte) *tagInfo {
	i := 2
	for i < len(raw) && !isSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	return lookupTag(raw[min(2, i):i])
}

// tagInfo is what the parser knows of a tag name, looked up once per tag.
type tagInfo struct {
	name     string
	id       int // its slot in parser.openCount; 0 for names outside the table
	block    bool
	cell     bool
	void     bool
	raw      bool // the tokenizer reads its content as text
	skipText bool // and that text is not page text
	plain    bool // no node of its own without an id
	closesP  bool
	implied  *impliedEnd
}

// tagTable holds the tags the parser treats specially, and the commonest others.
var tagTable = func() map[string]*tagInfo {
	m := map[string]*tagInfo{}
	add := func(names map[string]bool, set func(*tagInfo)) {
		for n := range names {
			ti, ok := m[n]
			if !ok {
				ti = &tagInfo{name: n, id: len(m) + 1}
				m[n] = ti
			}
			set(ti)
		}
	}
	add(blockTags, func(t *tagInfo) { t.block = true })
	add(cellTags, func(t *tagInfo) { t.cell = true })
	add(voidTags, func(t *tagInfo) { t.void = true })
	add(rawTags, func(t *tagInfo) { t.raw = true })
	add(skippedText, func(t *tagInfo) { t.skipText = true })
	add(plainInline, func(t *tagInfo) { t.plain = true })
	add(closesP, func(t *tagInfo) { t.closesP = true })
	add(set("a", "button", "input", "select", "option", "optgroup", "textarea", "label", "span", "img", "svg",
		"path", "tr", "td", "th", "datalist", "output", "meter", "progress"), func(*tagInfo) {})
	for n, rule := range impliedEnds {
		add(set(n), func(t *tagInfo) { t.implied = rule })
	}
	return m
}()

// lookupTag returns the tagInfo of a tag name, lower-casing it; names outside the table
// get one of their own.
func lookupTag(b []byte) *tagInfo {
	if len(b) > maxTagName {
		b = b[:maxTagName]
	}
	var buf [maxTagName]byte
	l := lowerASCII(buf[:0], b)
	if t, ok := tagTable[string(l)]; ok {
		return t
	}
	return &tagInfo{name: string(l)}
}

// lowerASCII appends b with ASCII letters in lower case: tag and attribute names, which
// HTML compares that way.
func lowerASCII(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

var pTag = tagTable["p"]
