package page

import (
	"html"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	maxElementText = 200 // runes of an element's inner text; buttons and links need far fewer
	maxAttrValue   = 200 // runes of an attribute value
	maxTitle       = 200 // runes of the page title
	maxTagName     = 32  // bytes of a tag name; longer names are cut
)

// keptAttrs are the attributes that tell the model what an element is, in display order.
// The boolean ones are shown as bare words.
var keptAttrs = []string{
	"type", "role", "name", "aria-label", "placeholder", "value", "title", "alt", "href", "data-name",
	"checked", "selected", "disabled", "readonly", "required",
	"aria-checked", "aria-selected", "aria-expanded", "aria-pressed", "aria-current", "aria-disabled",
}

var (
	attrRank  = rankOf(keptAttrs)
	boolAttrs = set("checked", "selected", "disabled", "readonly", "required")
	voidTags  = set("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
		"source", "track", "wbr")
	// blockTags start a new line of text: their start and end end a text run.
	blockTags = set("address", "article", "aside", "blockquote", "body", "br", "dd", "details", "dialog",
		"div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
		"h5", "h6", "head", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section",
		"summary", "table", "tbody", "tfoot", "thead", "title", "tr", "ul")
	// cellTags separate their content from the previous cell on the same line.
	cellTags = set("td", "th", "option")
	// rawTags hold text that is not markup; the first two are not page text at all.
	rawTags = map[string]bool{"script": false, "style": false, "title": true, "textarea": true}
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func rankOf(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

// Parse reads the extension's DOM string. It never fails: malformed markup is read the
// way a lenient HTML tokenizer would, invalid UTF-8 is replaced, and Taxy-style template
// definitions ("T1: <div>…</div>" lines and {T1(…)} calls) are expanded first so that
// elements inside templates keep their ids.
func Parse(dom string) *Page {
	chars := utf8.RuneCountInString(dom)
	if !utf8.ValidString(dom) {
		dom = strings.ToValidUTF8(dom, "\uFFFD")
	}
	p := &parser{
		s:    expandTemplates(dom),
		page: &Page{byID: map[int]int{}, domChars: chars},
		open: map[string]int{},
	}
	p.parse()
	return p.page
}

type openTag struct {
	name  string
	owner int // index of the element that owns text inside this tag, -1 for plain text
}

type textAcc struct {
	b     []byte
	runes int
	cut   bool
}

type rawAttr struct{ name, value string }

type parser struct {
	s     string
	pos   int
	page  *Page
	stack []openTag
	open  map[string]int // open tags by name, so an unmatched end tag costs nothing
	attrs []rawAttr
	accs  []textAcc // element texts, parallel to page.elements
	run   []byte    // the plain text run being read

	heading   textAcc
	capturing bool // inside the first <h1>
	headed    bool
}

func (p *parser) parse() {
	s := p.s
	for p.pos < len(s) {
		lt := strings.IndexByte(s[p.pos:], '<')
		if lt < 0 {
			p.text(s[p.pos:])
			break
		}
		if lt > 0 {
			p.text(s[p.pos : p.pos+lt])
			p.pos += lt
		}
		if !p.markup() {
			p.text("<")
			p.pos++
		}
	}
	p.flushRun()
	for i := range p.page.elements {
		p.page.elements[i].Text = p.accs[i].String()
	}
	if p.page.title == "" {
		p.page.title = p.heading.String()
	}
}

// markup reads the tag, comment or declaration at p.pos (a '<') and reports whether
// there was one; a '<' that starts none of them is text.
func (p *parser) markup() bool {
	s, i := p.s, p.pos
	if i+1 >= len(s) {
		return false
	}
	switch c := s[i+1]; {
	case isASCIILetter(c):
		p.startTag()
	case c == '/' && i+2 < len(s) && isASCIILetter(s[i+2]):
		p.endTag()
	case c == '/' || c == '?':
		p.skipPast(">", i+2)
	case c == '!':
		if strings.HasPrefix(s[i:], "<!--") {
			p.skipPast("-->", i+4)
		} else {
			p.skipPast(">", i+2)
		}
	default:
		return false
	}
	return true
}

// skipPast moves p.pos after the next sep at or after from, or to the end.
func (p *parser) skipPast(sep string, from int) {
	if k := strings.Index(p.s[from:], sep); k >= 0 {
		p.pos = from + k + len(sep)
		return
	}
	p.pos = len(p.s)
}

func (p *parser) tagName(i int) (string, int) {
	s, start := p.s, i
	for i < len(s) && isNameByte(s[i]) {
		i++
	}
	return lowerName(s[start:min(i, start+maxTagName)]), i
}

func (p *parser) startTag() {
	s := p.s
	name, i := p.tagName(p.pos + 1)
	p.attrs = p.attrs[:0]
	selfClosing := false
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			// A tag cut off by the end of input is dropped, as browsers do.
			p.pos = len(s)
			return
		}
		if s[i] == '>' {
			i++
			break
		}
		if s[i] == '/' {
			if i+1 < len(s) && s[i+1] == '>' {
				selfClosing = true
				i += 2
				break
			}
			i++
			continue
		}
		start := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '=' {
			i++
		}
		if i == start { // '=' with no name before it
			i++
			continue
		}
		attr := rawAttr{name: lowerName(s[start:i])}
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i >= len(s) {
				p.pos = len(s)
				return
			}
			if q := s[i]; q == '"' || q == '\'' {
				end := strings.IndexByte(s[i+1:], q)
				if end < 0 {
					p.pos = len(s)
					return
				}
				attr.value = s[i+1 : i+1+end]
				i += end + 2
			} else {
				start := i
				for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
					i++
				}
				attr.value = s[start:i]
				// <input id=12/> means a self-closing tag with id 12, not id "12/".
				if v, ok := strings.CutSuffix(attr.value, "/"); ok && i < len(s) && s[i] == '>' && isDigits(v) {
					attr.value = v
					selfClosing = true
				}
			}
		}
		p.attrs = append(p.attrs, attr)
	}
	p.pos = i
	p.openElement(name, selfClosing)
}

func (p *parser) endTag() {
	name, i := p.tagName(p.pos + 2)
	if k := strings.IndexByte(p.s[i:], '>'); k >= 0 {
		p.pos = i + k + 1
	} else {
		p.pos = len(p.s)
		return
	}
	p.closeElement(name)
}

func (p *parser) owner() int {
	if len(p.stack) == 0 {
		return -1
	}
	return p.stack[len(p.stack)-1].owner
}

func (p *parser) openElement(name string, selfClosing bool) {
	switch {
	case blockTags[name]:
		p.boundary()
	case cellTags[name]:
		p.separate()
	default:
		p.space()
	}
	owner := p.owner()
	id, isElement := -1, false
	for _, a := range p.attrs {
		if a.name == "id" {
			id, isElement = parseID(a.value)
			break
		}
	}
	if isElement {
		p.flushRun()
		owner = p.addElement(id, name)
	} else {
		// The extension keeps an element without an id only for its label (a rating, an
		// icon's meaning), so the label is page text.
		for _, a := range p.attrs {
			if a.name == "aria-label" || a.name == "alt" {
				p.addText(owner, " "+unescape(a.value)+" ")
			}
		}
	}
	if selfClosing || voidTags[name] {
		return
	}
	p.stack = append(p.stack, openTag{name: name, owner: owner})
	p.open[name]++
	if name == "h1" && !p.headed {
		p.capturing = true
	}
	if keep, ok := rawTags[name]; ok {
		p.rawText(name, keep)
	}
}

// rawText reads the content of a <script>, <style>, <title> or <textarea>, which is text
// up to the matching end tag, and closes the element.
func (p *parser) rawText(name string, keep bool) {
	s, from := p.s, p.pos
	end, next := len(s), len(s)
	for i := from; i < len(s); {
		k := strings.Index(s[i:], "</")
		if k < 0 {
			break
		}
		j := i + k + 2
		if j+len(name) <= len(s) && strings.EqualFold(s[j:j+len(name)], name) &&
			(j+len(name) == len(s) || !isNameByte(s[j+len(name)])) {
			end = i + k
			if g := strings.IndexByte(s[j:], '>'); g >= 0 {
				next = j + g + 1
			}
			break
		}
		i = j
	}
	if keep {
		text := s[from:end]
		if name == "title" {
			p.flushRun()
			if p.page.title == "" {
				var t textAcc
				t.add(unescape(text), maxTitle)
				p.page.title = t.String()
			}
		}
		p.text(text)
	}
	p.pos = next
	p.closeElement(name)
}

func (p *parser) closeElement(name string) {
	if p.open[name] == 0 {
		if name == "br" || name == "p" {
			p.boundary()
		}
		return
	}
	for len(p.stack) > 0 {
		top := p.stack[len(p.stack)-1]
		p.stack = p.stack[:len(p.stack)-1]
		p.open[top.name]--
		if top.name == "h1" && p.capturing {
			p.capturing, p.headed = false, true
		}
		if top.name == name {
			break
		}
	}
	if blockTags[name] {
		p.boundary()
	} else {
		p.space()
	}
}

func (p *parser) addElement(id int, tag string) int {
	e := Element{ID: id, Tag: tag}
	for _, a := range p.attrs {
		if _, kept := attrRank[a.name]; !kept {
			continue
		}
		if _, dup := e.Attr(a.name); dup {
			continue // the first of duplicate attributes wins, as in browsers
		}
		v := ""
		if !boolAttrs[a.name] {
			var t textAcc
			t.add(unescape(a.value), maxAttrValue)
			v = t.String()
		}
		e.Attrs = append(e.Attrs, Attr{Name: a.name, Value: v})
	}
	sort.SliceStable(e.Attrs, func(i, j int) bool { return attrRank[e.Attrs[i].Name] < attrRank[e.Attrs[j].Name] })
	idx := len(p.page.elements)
	p.page.elements = append(p.page.elements, e)
	p.accs = append(p.accs, textAcc{})
	if _, dup := p.page.byID[id]; !dup {
		p.page.byID[id] = idx
	}
	return idx
}

func (p *parser) text(raw string) {
	if raw == "" {
		return
	}
	p.addText(p.owner(), unescape(raw))
}

func (p *parser) addText(owner int, t string) {
	if p.capturing {
		p.heading.add(t, maxTitle)
	}
	if owner >= 0 {
		p.accs[owner].add(t, maxElementText)
		return
	}
	p.run, _ = appendCollapsed(p.run, t, -1, nil)
}

// boundary ends a line of text: the plain run, or a word inside an element's text.
func (p *parser) boundary() {
	if o := p.owner(); o >= 0 {
		p.accs[o].add(" ", maxElementText)
		return
	}
	p.flushRun()
}

// space separates words at a tag: pieces of text in different elements are usually
// apart on screen (CSS spacing), and gluing them ("Price$5") reads worse than a space.
func (p *parser) space() { p.addText(p.owner(), " ") }

// separate marks a new table cell or option within the current line.
func (p *parser) separate() {
	if o := p.owner(); o >= 0 {
		p.accs[o].separate(maxElementText)
		return
	}
	n := len(p.run)
	for n > 0 && p.run[n-1] == ' ' {
		n--
	}
	if n > 0 && p.run[n-1] != '|' {
		p.run = append(p.run[:n], " | "...)
	}
}

func (p *parser) flushRun() {
	t := strings.TrimSpace(string(p.run))
	t = strings.TrimSuffix(t, " |")
	p.run = p.run[:0]
	if t == "" || t == "|" {
		return
	}
	p.page.texts = append(p.page.texts, t)
	p.page.textChars += utf8.RuneCountInString(t)
}

func (a *textAcc) add(s string, limit int) {
	if !a.cut {
		a.b, a.cut = appendCollapsed(a.b, s, limit, &a.runes)
	}
}

func (a *textAcc) separate(limit int) {
	if a.cut {
		return
	}
	n := len(a.b)
	for n > 0 && a.b[n-1] == ' ' {
		n--
		a.runes--
	}
	a.b = a.b[:n]
	if n > 0 && a.b[n-1] != '|' {
		a.add(" | ", limit)
	}
}

// String returns the collected text, trimmed, with "…" where it was cut.
func (a *textAcc) String() string {
	t := strings.TrimSpace(string(a.b))
	t = strings.TrimSuffix(t, " |")
	if a.cut && t != "" {
		t += "…"
	}
	return t
}

// appendCollapsed appends s to dst with every run of whitespace or control characters
// turned into one space (never a leading one), invisible formatting characters dropped,
// and at most limit runes counted in *runes when limit >= 0. It reports whether it had to
// leave text out.
func appendCollapsed(dst []byte, s string, limit int, runes *int) ([]byte, bool) {
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || unicode.IsSpace(r):
			if len(dst) > 0 && dst[len(dst)-1] != ' ' {
				dst = append(dst, ' ')
				if runes != nil {
					*runes++
				}
			}
		case isInvisible(r):
		default:
			if limit >= 0 && *runes >= limit {
				return dst, true
			}
			dst = utf8.AppendRune(dst, r)
			if runes != nil {
				*runes++
			}
		}
	}
	return dst, false
}

// isInvisible reports zero-width and bidirectional formatting characters, which carry no
// text and could make the prompt read differently from what the model is given.
func isInvisible(r rune) bool {
	return (r >= 0x200B && r <= 0x200F) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2060 && r <= 0x206F) || r == 0xFEFF
}

func unescape(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	return html.UnescapeString(s)
}

// parseID reads an element id: decimal digits only, at most 9 of them so it fits any int.
func parseID(v string) (int, bool) {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 9 || !isDigits(v) {
		return -1, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		n = n*10 + int(v[i]-'0')
	}
	return n, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func isNameByte(c byte) bool {
	return isASCIILetter(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ':' || c == '.'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// lowerName lower-cases an ASCII name without allocating when it already is.
func lowerName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
