package pagemodel

import (
	"bytes"
	"html"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/trust"

	xhtml "golang.org/x/net/html"
)

// MaxAttrValue is the runes of an attribute value the page keeps.
const MaxAttrValue = 200

const (
	maxElementText = 200 // runes of an element's inner text; buttons and links need far fewer
	maxTitle       = 200 // runes of the page title
	maxTagName     = 32  // bytes of a tag name; longer names are cut
	maxDepth       = 256 // levels of the tree; deeper content joins the deepest container
	maxRestarts    = 1000
	impliedScan    = 16 // open tags looked at for an implied end tag (<li> closing the previous <li>)
	accSize        = 48 // bytes set aside for an element's text
)

// keptAttrs are the attributes that tell the model what an element is, in display order.
// The boolean ones are shown as bare words.
var keptAttrs = []string{
	"type", "role", "name", "aria-label", "placeholder", "value", "title", "alt", "href", "data-name",
	"checked", "selected", "disabled", "readonly", "required", "multiple",
	"aria-checked", "aria-selected", "aria-expanded", "aria-pressed", "aria-current", "aria-disabled",
	"aria-haspopup", "aria-invalid",
}

var (
	attrRank  = rankOf(keptAttrs)
	boolAttrs = set("checked", "selected", "disabled", "readonly", "required", "multiple")
	voidTags  = set("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
		"source", "track", "wbr")
	// blockTags start a new line of text: their start and end end a text run.
	blockTags = set("address", "article", "aside", "blockquote", "body", "br", "dd", "details", "dialog",
		"div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
		"h5", "h6", "head", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section",
		"summary", "table", "tbody", "tfoot", "thead", "title", "tr", "ul", "caption", "legend", "menu",
		"search", "center", "hgroup")
	// cellTags separate their content from the previous cell on the same line.
	cellTags = set("td", "th", "option")
	// skippedText are the raw-text elements whose content is not page text.
	skippedText = set("script", "style", "iframe", "noembed", "noframes", "noscript")
	// rawTags are the elements whose content the tokenizer reads as text up to their end tag.
	rawTags = set("script", "style", "iframe", "noembed", "noframes", "noscript", "textarea", "title", "xmp", "plaintext")
	// plainInline are inline tags that add nothing to the page's structure: without an id
	// they get no node, their text joins their parent's.
	plainInline = set("b", "i", "em", "strong", "small", "font", "u", "s", "strike", "sup", "sub", "mark",
		"abbr", "code", "time", "bdi", "bdo", "cite", "q", "kbd", "var", "wbr", "dfn", "ins", "del", "nobr", "tt", "big", "data",
		"span", "img", "picture", "svg", "g", "path", "use", "circle", "rect", "polygon", "line", "ellipse")
	// nodeAttrs are the attributes the tree keeps on containers without ids.
	nodeAttrs = set("role", "aria-label", "aria-modal", "open", "for", "name", "title", "alt", "selected", "value")
)

// impliedEnd says which open tags a start tag closes (as HTML parsers do, so that
// "<li>a<li>b" makes two items) and the tags that bound the search.
type impliedEnd struct {
	closes []string
	scope  []string
}

var impliedEnds = map[string]*impliedEnd{
	"li":       {[]string{"li"}, []string{"ul", "ol", "menu"}},
	"dt":       {[]string{"dt", "dd"}, []string{"dl"}},
	"dd":       {[]string{"dt", "dd"}, []string{"dl"}},
	"tr":       {[]string{"tr", "td", "th"}, []string{"table", "tbody", "thead", "tfoot"}},
	"td":       {[]string{"td", "th"}, []string{"tr", "table"}},
	"th":       {[]string{"td", "th"}, []string{"tr", "table"}},
	"option":   {[]string{"option"}, []string{"select", "datalist", "optgroup"}},
	"optgroup": {[]string{"option", "optgroup"}, []string{"select"}},
	"tbody":    {[]string{"thead", "tbody", "tfoot", "tr", "td", "th"}, []string{"table"}},
	"thead":    {[]string{"thead", "tbody", "tfoot", "tr", "td", "th"}, []string{"table"}},
	"tfoot":    {[]string{"thead", "tbody", "tfoot", "tr", "td", "th"}, []string{"table"}},
}

// closesP are the block tags that end an open paragraph.
var closesP = set("address", "article", "aside", "blockquote", "details", "dialog", "div", "dl", "fieldset",
	"figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "nav", "ol", "p",
	"pre", "section", "table", "ul", "menu")

// IsBlock reports a tag that starts a new line of text.
func IsBlock(tag string) bool { return blockTags[tag] }

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
// way an HTML tokenizer reads it, invalid UTF-8 is replaced, and Taxy-style template
// definitions ("T1: <div>…</div>" lines and {T1(…)} calls) are expanded first so that
// elements inside templates keep their ids.
func Parse(dom string) *Page {
	if !utf8.ValidString(dom) {
		dom = strings.ToValidUTF8(dom, "\uFFFD")
	}
	dom = expandTemplates(dom)
	// Sized from the markup up front: growing these slices costs more than parsing.
	tags, ids := strings.Count(dom, "<"), strings.Count(dom, "id=")
	p := &parser{
		page:      &Page{byID: make(map[int]int, ids), elements: make([]Element, 0, ids), info: make([]elemInfo, 0, ids)},
		openCount: make([]int32, len(tagTable)+1), openOther: map[string]int{},
		accs: make([]textAcc, 0, ids), nodes: make([]Node, 0, tags+1), tbuf: make([]byte, 0, len(dom)/4),
	}
	p.nodes = append(p.nodes, Node{Tag: "#root", Parent: -1, First: -1, Last: -1, Next: -1, Elem: -1, meta: -1})
	p.tokenize(dom)
	p.finish()
	return p.page
}

type openTag struct {
	ti    *tagInfo
	owner int   // index of the element that owns text inside this tag, -1 for plain text
	node  int32 // the tree node of this tag (its parent's when the tag makes none)
}

type textAcc struct {
	b     []byte
	runes int
	cut   bool
}

type rawAttr struct {
	name, value string
	end         int // where the value ends in the raw tag
}

type parser struct {
	page  *Page
	stack []openTag
	// Open tags by name, so that an unmatched end tag costs nothing: tags of the table
	// by their slot, others by name.
	openCount []int32
	openOther map[string]int
	attrs     []rawAttr
	accs      []textAcc // element texts, parallel to page.elements
	run       []byte    // the plain text run being read

	nodes    []Node
	metas    []NodeMeta
	tbuf     []byte // text of the text nodes
	slab     []byte // see buffer
	scratch  []byte
	lastText int32 // the text node that the next text may extend, -1 after any other node

	heading   textAcc
	capturing bool // inside the first <h1>
	headed    bool
	rawTag    *tagInfo // the raw-text element whose content the next text token is
}

// eachToken calls fn with each token of s, its raw bytes and their offset in s. When fn
// reports a self-closing raw-text tag (<textarea/>, as the templatizer writes it), the
// tokenizer, which would read the rest of the document as that tag's text, is restarted
// behind it instead (a bounded number of times, so that input made of such tags stays
// linear).
func eachToken(s string, fn func(z *xhtml.Tokenizer, tt xhtml.TokenType, raw []byte, off int) (restart bool)) {
	z := xhtml.NewTokenizer(strings.NewReader(s))
	base, off, restarts := 0, 0, 0
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return
		}
		raw := z.Raw()
		at := base + off
		off += len(raw)
		if fn(z, tt, raw, at) && restarts < maxRestarts {
			restarts++
			base += off
			off = 0
			z = xhtml.NewTokenizer(strings.NewReader(s[base:]))
		}
	}
}

// tokenize feeds the tokens of s to the parser.
func (p *parser) tokenize(s string) {
	eachToken(s, func(z *xhtml.Tokenizer, tt xhtml.TokenType, raw []byte, _ int) bool {
		switch tt {
		case xhtml.TextToken:
			in := p.rawTag
			p.rawTag = nil
			p.rawText(in, z.Text())
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			p.rawTag = nil
			ti, selfClosing := p.readTag(tt, raw)
			p.openElement(ti, selfClosing)
			if ti.raw {
				if !selfClosing {
					p.rawTag = ti
				}
				return selfClosing
			}
		case xhtml.EndTagToken:
			p.rawTag = nil
			p.closeElement(endTag(raw))
		}
		return false
	})
}

// readTag reads what the start tag raw is and the attributes the parser may need (the
// tokenizer's own accessors copy every name and value, which costs more than the rest of
// the parse), and whether the tag closes itself.
func (p *parser) readTag(tt xhtml.TokenType, raw []byte) (*tagInfo, bool) {
	p.attrs = p.attrs[:0]
	lastEnd := -1
	var last []byte
	sc, ti := scanTag(raw)
	for {
		key, val, _, end, ok := sc.next()
		if !ok {
			break
		}
		last, lastEnd = val, end
		if k, ok := knownAttrs[string(key)]; ok {
			p.attrs = append(p.attrs, rawAttr{name: k, value: unescape(string(val)), end: end})
		}
	}
	selfClosing := tt == xhtml.SelfClosingTagToken
	if !selfClosing && slashID(raw, last) {
		selfClosing = true
		if n := len(p.attrs); n > 0 && p.attrs[n-1].end == lastEnd {
			p.attrs[n-1].value = strings.TrimSuffix(p.attrs[n-1].value, "/")
		}
	}
	return ti, selfClosing
}

// slashID reports a tag like <input id=12/>, which the templatizer means as a
// self-closing tag with id 12 where HTML reads an id of "12/"; last is the raw value of
// the tag's last attribute.
func slashID(raw, last []byte) bool {
	v, ok := bytes.CutSuffix(last, []byte("/"))
	return ok && bytes.HasSuffix(raw, []byte("/>")) && isDigits(string(v))
}

// knownAttrs are the attributes the parser reads, by name, so that reading a tag can
// intern them.
var knownAttrs = func() map[string]string {
	m := map[string]string{"id": "id", "class": "class", "style": "style", "autocomplete": "autocomplete", "inputmode": "inputmode", "maxlength": "maxlength"}
	for _, n := range keptAttrs {
		m[n] = n
	}
	for n := range nodeAttrs {
		m[n] = n
	}
	return m
}()

// rawText handles a text token; in is the raw-text element it is the content of, if any.
func (p *parser) rawText(in *tagInfo, b []byte) {
	switch {
	case in == nil:
	case in.skipText:
		return
	case in.name == "title":
		p.flushRun()
		if p.page.title == "" {
			p.page.title = Collapse(string(b), maxTitle)
		}
		p.addText(p.owner(), string(b), false)
		return
	}
	p.addText(p.owner(), string(b), true)
}

func (p *parser) owner() int {
	if len(p.stack) == 0 {
		return -1
	}
	return p.stack[len(p.stack)-1].owner
}

func (p *parser) parentNode() int32 {
	if len(p.stack) == 0 {
		return 0
	}
	return p.stack[len(p.stack)-1].node
}

// openCounter returns the count of open tags named like ti.
func (p *parser) openCounter(ti *tagInfo) *int32 {
	if ti.id > 0 {
		return &p.openCount[ti.id]
	}
	n := int32(p.openOther[ti.name])
	return &n
}

func (p *parser) setOpen(ti *tagInfo, delta int32) {
	if ti.id > 0 {
		p.openCount[ti.id] += delta
		return
	}
	p.openOther[ti.name] += int(delta)
}

func (p *parser) openElement(ti *tagInfo, selfClosing bool) {
	name := ti.name
	p.closeImplied(ti)
	switch {
	case ti.block:
		p.boundary()
	case ti.cell:
		p.separate()
	default:
		p.space()
	}
	owner, nd := p.addTag(ti)
	if selfClosing || ti.void {
		return
	}
	p.stack = append(p.stack, openTag{ti: ti, owner: owner, node: nd})
	p.setOpen(ti, 1)
	if name == "h1" && !p.headed {
		p.capturing = true
	}
}

// addTag adds the tag just read under the open one: an element when it has an id, else a node
// (unless it only wraps text) whose label is page text. It returns the element that owns what
// the tag holds, and its node.
func (p *parser) addTag(ti *tagInfo) (owner int, nd int32) {
	owner = p.owner()
	id, isElement := -1, false
	for _, a := range p.attrs {
		if a.name == "id" {
			id, isElement = parseID(a.value)
			break
		}
	}
	parent := p.parentNode()
	if isElement {
		p.flushRun()
		owner = p.addElement(id, ti.name)
		return owner, p.addNode(ti.name, parent, int32(owner))
	}
	nd = parent
	if !ti.plain && ti.name != "html" && ti.name != "body" {
		nd = p.addNode(ti.name, parent, -1)
	}
	// The extension keeps an element without an id only for its label (a rating, an
	// icon's meaning), so the label is page text.
	for _, a := range p.attrs {
		if a.name == "aria-label" || a.name == "alt" {
			p.addTextIn(owner, nd, " "+a.value+" ", true)
			p.lastText = -1 // kept apart, so that a header showing the label can drop it
		}
	}
	return owner, nd
}

// closeImplied closes what a start tag ends without an end tag of its own.
func (p *parser) closeImplied(ti *tagInfo) {
	if rule := ti.implied; rule != nil {
		for i := len(p.stack) - 1; i >= 0 && i >= len(p.stack)-impliedScan; i-- {
			t := p.stack[i].ti
			if slices.Contains(rule.scope, t.name) {
				return
			}
			if slices.Contains(rule.closes, t.name) {
				p.closeElement(t)
				return
			}
		}
		return
	}
	if ti.closesP && p.openCount[pTag.id] > 0 {
		for i := len(p.stack) - 1; i >= 0 && i >= len(p.stack)-impliedScan; i-- {
			switch p.stack[i].ti.name {
			case "p":
				p.closeElement(p.stack[i].ti)
				return
			case "div", "li", "td", "th", "section", "article", "form", "button", "body", "table":
				return
			}
		}
	}
}

func (p *parser) closeElement(ti *tagInfo) {
	if *p.openCounter(ti) == 0 {
		if ti.name == "br" || ti.name == "p" {
			p.boundary()
		}
		return
	}
	before := p.parentNode()
	for len(p.stack) > 0 {
		top := p.stack[len(p.stack)-1]
		p.stack = p.stack[:len(p.stack)-1]
		p.setOpen(top.ti, -1)
		if top.ti.name == "h1" && p.capturing {
			p.capturing, p.headed = false, true
		}
		if top.ti.name == ti.name {
			break
		}
	}
	if p.parentNode() != before {
		p.lastText = -1
	}
	if ti.block {
		p.boundary()
	} else {
		p.space()
	}
}

func (p *parser) addElement(id int, tag string) int {
	e := Element{ID: id, Tag: tag}
	var info elemInfo
	for _, a := range p.attrs {
		switch a.name {
		case "autocomplete":
			info.autocomplete = strings.ToLower(strings.TrimSpace(a.value))
		case "inputmode":
			info.inputMode = strings.ToLower(strings.TrimSpace(a.value))
		case "maxlength":
			info.maxLength, _ = strconv.Atoi(strings.TrimSpace(a.value))
		case "style":
			info.masked = trust.MaskedStyle(a.value)
		}
		if _, kept := attrRank[a.name]; !kept {
			continue
		}
		if _, dup := e.Attr(a.name); dup {
			continue // the first of duplicate attributes wins, as in browsers
		}
		v := ""
		if !boolAttrs[a.name] {
			v = Collapse(a.value, MaxAttrValue)
		}
		e.Attrs = append(e.Attrs, Attr{Name: a.name, Value: v})
	}
	sort.SliceStable(e.Attrs, func(i, j int) bool { return attrRank[e.Attrs[i].Name] < attrRank[e.Attrs[j].Name] })
	idx := len(p.page.elements)
	p.page.elements = append(p.page.elements, e)
	p.page.info = append(p.page.info, info)
	p.accs = append(p.accs, textAcc{b: p.buffer(accSize)})
	if _, dup := p.page.byID[id]; !dup {
		p.page.byID[id] = idx
	}
	return idx
}

// addNode appends a tree node for a tag under parent and returns it (or the parent when
// the tree is already as deep as it may get).
func (p *parser) addNode(tag string, parent int32, elem int32) int32 {
	capped := len(p.stack) >= maxDepth
	if capped && elem < 0 {
		return parent
	}
	n := Node{Tag: tag, Parent: parent, First: -1, Last: -1, Next: -1, Elem: elem, meta: p.nodeMeta()}
	idx := int32(len(p.nodes))
	p.nodes = append(p.nodes, n)
	p.link(parent, idx)
	if elem >= 0 {
		p.page.info[elem].node = idx
	}
	p.lastText = -1
	if capped {
		// An element this deep keeps its node, but what it contains joins its parent.
		return parent
	}
	return idx
}

// buffer returns an empty slice with room for n bytes, carved from a shared block: most
// element texts fit, and one block costs less than an allocation per element.
func (p *parser) buffer(n int) []byte {
	if len(p.slab)+n > cap(p.slab) {
		p.slab = make([]byte, 0, 64*n)
	}
	start := len(p.slab)
	p.slab = p.slab[:start+n]
	return p.slab[start : start : start+n]
}

func (p *parser) link(parent, child int32) {
	par := &p.nodes[parent]
	if par.Last >= 0 {
		p.nodes[par.Last].Next = child
	} else {
		par.First = child
	}
	par.Last = child
}

// nodeMeta keeps the attributes of a container that say what it is, or returns -1.
func (p *parser) nodeMeta() int32 {
	var m NodeMeta
	any := false
	for _, a := range p.attrs {
		any = m.hint(a.name, a.value) || any
		if !nodeAttrs[a.name] {
			continue
		}
		any = true
		m.set(a.name, cleanAttr(a.value))
	}
	if !any {
		return -1
	}
	p.metas = append(p.metas, m)
	return int32(len(p.metas) - 1)
}

// hint notes a class, id or style that marks a fixed or sticky container or one about consent,
// and says whether it did.
func (m *NodeMeta) hint(name, value string) bool {
	switch name {
	case "class", "id", "style":
	default:
		return false
	}
	v := strings.ToLower(value)
	if name == "style" && (strings.Contains(v, "fixed") || strings.Contains(v, "sticky")) {
		m.Fixed = true
		return true
	}
	if name != "style" && hasConsentHint(v) {
		m.ConsentHint = true
		return true
	}
	return false
}

// set keeps the value v of attribute name, one of nodeAttrs.
func (m *NodeMeta) set(name, v string) {
	switch name {
	case "role":
		m.Role = strings.ToLower(v)
	case "aria-label":
		m.Label = v
	case "aria-modal":
		m.Modal = strings.EqualFold(v, "true")
	case "open":
		m.Open = true
	case "for":
		m.ForID = v
	case "name", "title", "alt":
		if m.Name == "" {
			m.Name = v
		}
	case "selected":
		m.Selected = true
	case "value":
		m.Value = v
	}
}

// hasConsentHint reports a class or id (lower case) that names cookies or consent, as the
// containers of consent banners have.
func hasConsentHint(v string) bool {
	for _, w := range []string{"cookie", "consent", "gdpr", "onetrust", "cmp", "cc-banner", "privacy"} {
		if strings.Contains(v, w) {
			return true
		}
	}
	return false
}

func cleanAttr(v string) string { return Collapse(v, MaxAttrValue) }

// Collapse returns s with whitespace collapsed and invisible characters dropped, cut to
// limit runes with "…"; s itself when it needs none of that, as most values do.
func Collapse(s string, limit int) string {
	if len(s) <= limit && isPlain(s) {
		return s
	}
	var t textAcc
	t.add(s, limit)
	return t.String()
}

// isPlain reports printable ASCII with single inner spaces.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			if i == 0 || i == len(s)-1 || s[i-1] == ' ' {
				return false
			}
			continue
		}
		if c < 0x21 || c > 0x7E {
			return false
		}
	}
	return true
}

func (p *parser) addText(owner int, t string, tree bool) {
	p.addTextIn(owner, p.parentNode(), t, tree)
}

// addTextIn adds text to the element that owns it (or the plain text run) and, when tree
// is set, to the tree under node nd.
func (p *parser) addTextIn(owner int, nd int32, t string, tree bool) {
	if p.capturing {
		p.heading.add(t, maxTitle)
	}
	if !tree {
		p.addOwned(owner, t)
		return
	}
	// The text is collapsed once, into the tree, and copied from there.
	c, lead, trail := p.treeText(nd, t)
	if len(c) == 0 {
		p.addOwned(owner, t) // whitespace, which still separates words
		return
	}
	if lead {
		p.addOwned(owner, " ")
	}
	if owner < 0 {
		p.run = append(p.run, c...)
	} else if a := &p.accs[owner]; !a.cut {
		if n := utf8.RuneCount(c); a.runes+n <= maxElementText {
			a.b = append(a.b, c...)
			a.runes += n
		} else {
			a.add(string(c), maxElementText)
		}
	}
	if trail {
		p.addOwned(owner, " ")
	}
}

// addOwned adds text to the element that owns it, or to the plain text run.
func (p *parser) addOwned(owner int, t string) {
	if owner >= 0 {
		p.accs[owner].add(t, maxElementText)
		return
	}
	p.run, _ = appendCollapsed(p.run, t, -1, nil)
}

// treeText appends a text node under nd, or extends the text node just before it, and
// returns the text as it collapsed and whether whitespace was cut before and after it.
func (p *parser) treeText(nd int32, t string) (c []byte, lead, trail bool) {
	trimmed := strings.TrimLeftFunc(t, isCollapsible)
	lead = len(trimmed) < len(t)
	if trimmed == "" {
		return nil, lead, false
	}
	merge := p.lastText >= 0 && p.nodes[p.lastText].Parent == nd
	if merge {
		p.tbuf = append(p.tbuf, ' ')
	}
	start := len(p.tbuf)
	p.tbuf, _ = appendCollapsed(p.tbuf, trimmed, -1, nil)
	n := len(p.tbuf)
	p.tbuf = bytes.TrimRight(p.tbuf, " ")
	trail = len(p.tbuf) < n
	if len(p.tbuf) == start {
		// Only invisible characters: nothing to keep.
		if merge {
			p.tbuf = p.tbuf[:start-1]
		}
		return nil, lead, trail
	}
	if merge {
		p.nodes[p.lastText].End = int32(len(p.tbuf))
	} else {
		idx := int32(len(p.nodes))
		p.nodes = append(p.nodes, Node{Parent: nd, First: -1, Last: -1, Next: -1, Elem: -1, meta: -1, Start: int32(start), End: int32(len(p.tbuf))})
		p.link(nd, idx)
		p.lastText = idx
	}
	return p.tbuf[start:], lead, trail
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
func (p *parser) space() { p.addTextIn(p.owner(), 0, " ", false) }

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
}

func (p *parser) finish() {
	p.flushRun()
	pg := p.page
	for i := range pg.elements {
		pg.elements[i].Text = p.accs[i].String()
	}
	if pg.title == "" {
		pg.title = p.heading.String()
	}
	if len(pg.elements) == 0 {
		pg.elements, pg.info = nil, nil
	}
	pg.nodes, pg.metas, pg.tbuf = p.nodes, p.metas, string(p.tbuf)
	pg.maskSecrets()
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
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		} else if r > ' ' && r != 0x7F {
			// Printable ASCII, by far the commonest case.
			if limit >= 0 && *runes >= limit {
				return dst, true
			}
			dst = append(dst, byte(r))
			if runes != nil {
				*runes++
			}
			i++
			continue
		}
		i += size
		switch {
		case isCollapsible(r):
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

// isCollapsible reports the characters that collapse into one space: whitespace and
// control characters.
func isCollapsible(r rune) bool {
	return r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || (r >= utf8.RuneSelf || r == ' ') && unicode.IsSpace(r)
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
