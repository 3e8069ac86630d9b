package page

import (
	"strings"
	"unicode/utf8"
)

const (
	oneLineMax  = 200 // runes: a block whose content fits renders as one line
	rowMax      = 600 // runes: a table row stays one line up to this size
	maxListItem = 48  // runes: a list whose items are all this short may be one line
	maxChunk    = 300 // runes of a line of running text; longer runs are split
	maxIndent   = 10  // levels of indentation; deeper containers do not indent further
	maxLabel    = 80  // runes of a container's label in its header line
	labelScan   = 24  // nodes searched for a container's heading
	maxContext  = 120 // bytes of the text around an element that its signature hashes
)

// layout is the page as an outline: lines in document order, each with the elements it
// shows and the containers (groups) it belongs to. It depends only on the page, so it is
// built once and shared by every rendering.
type layout struct {
	lines    []line
	groups   []group
	overlays []overlay
	sigs     []uint64 // per element: what identifies it across steps (see signature)
	states   []uint64 // per element: its value and states (see state)
	labels   []string // per element: its <label> text when it has no name of its own
}

// line is one line of the outline, without its indentation and marks.
type line struct {
	text    string
	indent  int32
	group   int32   // the innermost group, -1 for none
	overlay int32   // the overlay it belongs to, -1 for none
	elems   []int32 // elements shown on the line in document order, each with where its "[id]" starts in text
	chars   int32   // runes of page text (not element renderings)
}

// group is a container that spans lines [start, end): a card, a list item, a form. The
// budgeter keeps a kept line's group with it when the group is small.
type group struct {
	start, end int32
	parent     int32
	header     int32 // its header line, -1 when it has none
	columns    int32 // a table's first row (its column names), -1 for none
}

// overlay is an open dialog or a cookie banner found on the page.
type overlay struct {
	node      int32
	lo, hi    int32 // its elements
	labelNode int32 // the node its label comes from, -1 for none
	kind      OverlayKind
	dialog    OverlayKind // the dialog kind it was found as, "" for a banner
	label     string
	modal     bool
}

// builder lays a page out.
type builder struct {
	p         *Page
	lay       *layout
	size      []int32   // runes a node's content takes when flattened, capped
	block     []bool    // the node starts its own line (a block tag, or it holds one)
	hasElem   []bool    // the node's subtree holds an element with an id
	lo, hi    []int32   // elements of the node's subtree: [lo, hi)
	skip      []bool    // headings used as their container's label
	lines     []bool    // the node is never folded into one line
	ov        []int32   // per node: the overlay it opens, -1 for none
	base      []string  // per element: its rendering without marks and label
	opts      [][]int32 // per select: its options with ids, as (element, offset in base) pairs
	elemArena []int32   // the lines' elems
	segPool   [][]seg   // see takeSegs
	cur       int32     // innermost open group
	curOv     int32     // innermost open overlay
}

func (p *Page) layout() *layout {
	p.layoutOnce.Do(func() { p.lay = buildLayout(p) })
	return p.lay
}

func buildLayout(p *Page) *layout {
	n := len(p.nodes)
	b := &builder{
		p: p, lay: &layout{}, size: make([]int32, n), block: make([]bool, n), hasElem: make([]bool, n),
		lo: make([]int32, n), hi: make([]int32, n), skip: make([]bool, n), lines: make([]bool, n), ov: make([]int32, n),
		base: make([]string, len(p.elements)), opts: make([][]int32, len(p.elements)), cur: -1, curOv: -1,
	}
	// Sized for a typical page, where a line holds about three nodes or more: growing these
	// slices would cost more than filling them.
	b.lay.lines = make([]line, 0, n/3+16)
	b.lay.groups = make([]group, 0, n/3+16)
	b.elemArena = make([]int32, 0, 2*len(p.elements)+2)
	b.measure()
	b.lay.labels = b.findLabels()
	b.findOverlays()
	b.lay.sigs, b.lay.states = make([]uint64, len(p.elements)), make([]uint64, len(p.elements))
	for i, e := range p.elements {
		b.lay.sigs[i], b.lay.states[i] = signature(e, b.context(i)), b.state(i)
	}
	if n > 0 {
		b.children(0, 0)
	}
	return b.lay
}

// context hashes the text around element i that tells it apart from its look-alikes:
// the text of the list item or row it is in. Elements outside items have none (their
// signature then tells look-alikes apart by their order): the text of any larger
// container changes whenever anything is added to it.
func (b *builder) context(i int) uint64 {
	nodes := b.p.nodes
	c := nodes[b.p.info[i].node].parent
	for k := 0; c > 0 && !b.isItem(c); k++ {
		if k == 6 {
			c = 0
			break
		}
		c = nodes[c].parent
	}
	h := newFNV()
	if c <= 0 {
		return uint64(h)
	}
	// The first bytes of its text nodes, in document order.
	budget := maxContext
	for k := nodes[c].first; k >= 0 && budget > 0; {
		nd := &nodes[k]
		if nd.tag == "" {
			t := b.p.tbuf[nd.start:min(nd.end, nd.start+int32(budget))]
			h.add(t)
			budget -= len(t)
		}
		switch {
		case nd.tag != "" && nd.elem < 0 && nd.first >= 0:
			k = nd.first
		default:
			for k >= 0 && k != c && nodes[k].next < 0 {
				k = nodes[k].parent
			}
			if k < 0 || k == c {
				return uint64(h)
			}
			k = nodes[k].next
		}
	}
	return uint64(h)
}

// isContainerElem reports an element that holds other elements (a select's options aside).
func (b *builder) isContainerElem(i int) bool {
	nd := b.p.info[i].node
	return b.hasElem[nd] && b.p.nodes[nd].tag != "select"
}

// measure computes, bottom up, which nodes are blocks and hold elements, then each
// element's rendering and each node's flattened size.
func (b *builder) measure() {
	nodes := b.p.nodes
	for i := range nodes {
		b.lo[i], b.hi[i] = int32(len(b.p.elements)), 0
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := &nodes[i]
		if nd.elem >= 0 {
			b.lo[i], b.hi[i] = min(b.lo[i], nd.elem), max(b.hi[i], nd.elem+1)
		}
		if par := nd.parent; par >= 0 {
			b.lo[par], b.hi[par] = min(b.lo[par], b.lo[i]), max(b.hi[par], b.hi[i])
			if nd.elem >= 0 || b.hasElem[i] {
				b.hasElem[par] = true
			}
		}
	}
	// A block tag starts a line, and so does anything holding one, except an element
	// without elements inside, which renders as one piece whatever it holds.
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := &nodes[i]
		if blockTags[nd.tag] || blockRoles[b.role(int32(i))] || nd.tag == "td" || nd.tag == "th" {
			b.block[i] = true
		}
		par := nd.parent
		if par >= 0 && b.block[i] && (nodes[par].elem < 0 || b.isContainerElem(int(nodes[par].elem))) {
			b.block[par] = true
		}
	}
	for i := range b.p.elements {
		b.base[i] = b.formatBase(i)
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := &nodes[i]
		switch {
		case nd.tag == "":
			b.size[i] = int32(utf8.RuneCountInString(b.p.tbuf[nd.start:nd.end])) + 1
		case nd.elem >= 0 && !b.isContainerElem(int(nd.elem)):
			b.size[i] = int32(len(b.base[nd.elem])) + 1
		case nd.elem >= 0:
			b.size[i] += int32(len(b.base[nd.elem])) + 1
		}
		if nd.parent >= 0 {
			b.size[nd.parent] = min(b.size[nd.parent]+b.size[i], 1<<30)
		}
	}
	// Tables and lists of cards keep a line per row or card, and so does whatever holds
	// them.
	for i := range nodes {
		n := int32(i)
		if nodes[i].tag != "" && (neverOneLine[nodes[i].tag] || b.containerKind(n) == "table" || b.hasBigItems(n)) {
			b.keepLines(n)
		}
	}
}

// formatBase renders element i without marks or label: a select with its options (the
// selected ones marked "*"), an element holding others without its text.
func (b *builder) formatBase(i int) string {
	e := b.p.elements[i]
	s := formatElement(e, !b.isContainerElem(i))
	if e.Tag != "select" {
		return s
	}
	var out strings.Builder
	out.WriteString(s)
	nodes := b.p.nodes
	type option struct {
		text     string
		elem     int32
		selected bool
	}
	var opts []option
	anySelected := false
	var walk func(int32)
	walk = func(c int32) {
		for ; c >= 0; c = nodes[c].next {
			nd := &nodes[c]
			if nd.tag != "option" {
				if nd.tag != "" {
					walk(nd.first)
				}
				continue
			}
			o := option{elem: nd.elem}
			if nd.elem >= 0 {
				oe := b.p.elements[nd.elem]
				o.text = oe.Text
				_, o.selected = oe.Attr("selected")
				if o.text == "" {
					o.text, _ = oe.Attr("value")
				}
			} else {
				o.text = b.nodeText(c, maxAttrValue)
				if m := b.meta(c); m != nil {
					o.selected = m.selected
					if o.text == "" {
						o.text = m.value
					}
				}
			}
			anySelected = anySelected || o.selected
			opts = append(opts, o)
		}
	}
	walk(nodes[b.p.info[i].node].first)
	if len(opts) == 0 {
		return s
	}
	_, multiple := e.Attr("multiple")
	if !anySelected && !multiple {
		opts[0].selected = true // what a browser shows
	}
	out.WriteString(" options:")
	used, shown := 0, 0
	for _, o := range opts {
		t := escapeRefs(cutRunes(o.text, maxLabel))
		cost := utf8.RuneCountInString(t) + 2
		if used+cost > maxOption && !o.selected {
			continue
		}
		if shown > 0 {
			out.WriteByte(',')
		}
		out.WriteByte(' ')
		if o.elem >= 0 {
			b.opts[i] = append(b.opts[i], o.elem, int32(out.Len()))
			out.WriteString("[" + itoa(b.p.elements[o.elem].ID) + "] ")
		}
		out.WriteString(t)
		if o.selected {
			out.WriteByte('*')
		}
		used += cost
		shown++
	}
	if rest := len(opts) - shown; rest > 0 {
		out.WriteString(", … (" + thousands(rest) + " more)")
	}
	return out.String()
}

var blockRoles = set("dialog", "alertdialog", "list", "listitem", "row", "table", "grid", "treegrid", "navigation",
	"region", "main", "banner", "contentinfo", "complementary", "form", "search", "article", "alert", "status",
	"menu", "menubar", "tablist", "tabpanel", "toolbar", "tree", "group", "heading", "feed", "rowgroup")

func (b *builder) meta(n int32) *nodeMeta {
	if m := b.p.nodes[n].meta; m >= 0 {
		return &b.p.metas[m]
	}
	return nil
}

func (b *builder) role(n int32) string {
	if m := b.meta(n); m != nil {
		return m.role
	}
	return ""
}

// nodeText returns the text of a node's subtree outside elements with ids, at most limit
// runes, looking at no more than a few hundred nodes.
func (b *builder) nodeText(n int32, limit int) string {
	var acc textAcc
	visited := 0
	var walk func(int32)
	walk = func(c int32) {
		for ; c >= 0 && !acc.cut && visited < 400; c = b.p.nodes[c].next {
			visited++
			nd := &b.p.nodes[c]
			switch {
			case nd.tag == "":
				acc.add(b.p.tbuf[nd.start:nd.end], limit)
				acc.add(" ", limit)
			case nd.elem >= 0:
			default:
				walk(nd.first)
			}
		}
	}
	if b.p.nodes[n].tag == "" {
		return b.p.tbuf[b.p.nodes[n].start:b.p.nodes[n].end]
	}
	walk(b.p.nodes[n].first)
	return acc.String()
}

// findLabels returns, per element without a name of its own, the text of its <label>:
// the one whose for= names the element's id or name, or the one around it.
func (b *builder) findLabels() []string {
	labels := make([]string, len(b.p.elements))
	byFor := map[string]string{}
	for i := range b.p.nodes {
		nd := &b.p.nodes[i]
		if nd.tag != "label" {
			continue
		}
		if m := b.meta(int32(i)); m != nil && m.forID != "" {
			if _, dup := byFor[m.forID]; !dup {
				byFor[m.forID] = b.nodeText(int32(i), maxLabel)
			}
		}
	}
	for i, e := range b.p.elements {
		if hasOwnName(e) {
			continue
		}
		if t, ok := byFor[itoa(e.ID)]; ok && t != "" {
			labels[i] = t
			continue
		}
		if name, ok := e.Attr("name"); ok && name != "" {
			if t, ok := byFor[name]; ok && t != "" {
				labels[i] = t
				continue
			}
		}
		for a, k := b.p.nodes[b.p.info[i].node].parent, 0; a > 0 && k < 4; a, k = b.p.nodes[a].parent, k+1 {
			if b.p.nodes[a].tag == "label" {
				labels[i] = b.nodeText(a, maxLabel)
				break
			}
		}
	}
	return labels
}

// hasOwnName reports whether an element names itself (text, aria-label, placeholder,
// title, alt, or the value of a button).
func hasOwnName(e Element) bool {
	if e.Text != "" {
		return true
	}
	for _, a := range e.Attrs {
		switch a.Name {
		case "aria-label", "placeholder", "title", "alt":
			if a.Value != "" {
				return true
			}
		case "value":
			if a.Value != "" && e.Kind() == KindButton {
				return true
			}
		}
	}
	return false
}

// headingOf finds the heading that names a container: the first h1-h6 (or role=heading)
// among its first nodes. A heading that holds elements with ids names the container but
// keeps its own line.
func (b *builder) headingOf(n int32) (string, int32) {
	visited := 0
	var found int32 = -1
	var walk func(int32)
	walk = func(c int32) {
		for ; c >= 0 && found < 0 && visited < labelScan; c = b.p.nodes[c].next {
			visited++
			nd := &b.p.nodes[c]
			if isHeading(nd.tag) || b.role(c) == "heading" || nd.tag == "legend" || nd.tag == "caption" {
				found = c
				return
			}
			if nd.tag != "" && nd.elem < 0 {
				walk(nd.first)
			}
		}
	}
	walk(b.p.nodes[n].first)
	if found < 0 {
		return "", -1
	}
	return b.nodeText(found, maxLabel), found
}

// labelText returns the text node that repeats a container's aria-label (the parser keeps
// labels as text), or -1.
func (b *builder) labelText(n int32, label string) int32 {
	c := b.p.nodes[n].first
	if c >= 0 && b.p.nodes[c].tag == "" && b.nodeText(c, maxAttrValue) == cleanAttr(label) {
		return c
	}
	return -1
}

func isHeading(tag string) bool {
	return len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6'
}

// containerKind names what a container is, for its header line, or "" for an anonymous one.
func (b *builder) containerKind(n int32) string {
	tag, role := b.p.nodes[n].tag, b.role(n)
	switch role {
	case "form":
		return "form"
	case "search":
		return "search"
	case "list", "listbox", "feed":
		return "list"
	case "menu", "menubar":
		return "menu"
	case "tablist":
		return "tabs"
	case "table", "grid", "treegrid":
		return "table"
	case "navigation":
		return "nav"
	case "banner":
		return "header"
	case "contentinfo":
		return "footer"
	case "main":
		return "main"
	case "complementary":
		return "aside"
	case "region":
		return "section"
	case "article":
		return "article"
	case "alert":
		return "alert"
	case "status":
		return "status"
	case "toolbar":
		return "toolbar"
	case "tree":
		return "tree"
	case "tabpanel":
		return "tab panel"
	case "group":
		return "group"
	}
	switch tag {
	case "form", "search", "table", "nav", "header", "footer", "main", "aside", "section", "article", "fieldset", "details":
		return tag
	case "ul", "ol", "dl":
		return "list"
	case "menu":
		return "menu"
	}
	if m := b.meta(n); m != nil && m.label != "" && b.p.nodes[n].elem < 0 {
		return "group"
	}
	return ""
}

// containerLabel is the name shown in a container's header, and the heading node it takes
// the name from (not repeated below it), or -1.
func (b *builder) containerLabel(n int32, kind string) (string, int32) {
	if m := b.meta(n); m != nil {
		if m.label != "" {
			return m.label, b.labelText(n, m.label)
		}
		if kind == "form" && m.name != "" {
			return m.name, -1
		}
	}
	switch kind {
	case "section", "article", "aside", "main", "fieldset", "table", "form", "dialog", "alertdialog", "banner", "group", "tab panel":
		return b.headingOf(n)
	}
	return "", -1
}

// neverOneLine are the containers whose children always get lines of their own.
var neverOneLine = set("table", "thead", "tbody", "tfoot", "dl")

// isItem reports list items and rows: a large one indents its lines after the first so
// that items stay apart.
func (b *builder) isItem(n int32) bool {
	switch b.p.nodes[n].tag {
	case "li", "tr", "dt", "dd":
		return true
	}
	switch b.role(n) {
	case "listitem", "row", "article", "option", "treeitem":
		return true
	}
	return false
}

// openGroup starts the group of container n at the next line.
func (b *builder) openGroup() int32 {
	g := int32(len(b.lay.groups))
	b.lay.groups = append(b.lay.groups, group{start: int32(len(b.lay.lines)), parent: b.cur, header: -1, columns: -1})
	b.cur = g
	return g
}

// closeGroup ends group g; a group of no lines is dropped.
func (b *builder) closeGroup(g int32) {
	gr := &b.lay.groups[g]
	gr.end = int32(len(b.lay.lines))
	b.cur = gr.parent
	if gr.end == gr.start && int(g) == len(b.lay.groups)-1 {
		b.lay.groups = b.lay.groups[:g]
	}
}

// children lays out the content of node n at indent: running inline content becomes
// lines, block children lay themselves out.
func (b *builder) children(n int32, indent int) {
	run := lineBuf{segs: b.takeSegs()}
	defer b.putSegs(&run)
	for c := b.p.nodes[n].first; c >= 0; c = b.p.nodes[c].next {
		nd := &b.p.nodes[c]
		if b.skip[c] || nd.tag == "head" {
			continue
		}
		if b.block[c] || b.ov[c] >= 0 {
			b.flush(&run, indent)
			b.blockNode(c, indent)
			continue
		}
		b.inline(&run, c, indent)
	}
	b.flush(&run, indent)
}

// blockNode lays out block node n: as one line when it is small, else as a header line (a
// named container, a dialog) with its children indented, else its children in its place.
func (b *builder) blockNode(n int32, indent int) {
	nd := &b.p.nodes[n]
	g := b.openGroup()
	defer b.closeGroup(g)
	prevOv := b.curOv
	if o := b.ov[n]; o >= 0 {
		b.curOv = o
		defer func() { b.curOv = prevOv }()
	}
	head := lineBuf{segs: b.takeSegs()}
	defer b.putSegs(&head)
	if nd.elem >= 0 && !b.isContainerElem(int(nd.elem)) {
		head.addElem(nd.elem, len(b.base[nd.elem]))
		b.flush(&head, indent)
		return
	}
	if nd.tag == "br" || nd.tag == "hr" {
		return
	}
	kind, label, labelNode := "", "", int32(-1)
	if o := b.ov[n]; o >= 0 {
		ov := b.lay.overlays[o]
		kind, labelNode = overlayHeader(ov), ov.labelNode
	} else if kind = b.containerKind(n); kind != "" {
		label, labelNode = b.containerLabel(n, kind)
	}
	if labelNode >= 0 && b.hasElem[labelNode] {
		labelNode = -1
	}
	if labelNode >= 0 {
		b.skip[labelNode] = true
	}
	switch {
	case nd.elem >= 0:
		head.addElem(nd.elem, len(b.base[nd.elem]))
		if o := b.ov[n]; o >= 0 {
			head.addRaw(" (" + overlayNote(b.lay.overlays[o]) + ")")
		}
	case kind != "":
		head.addRaw(headerPrefix(kind, label))
	}
	oneLine := !b.lines[n] && (b.size[n] <= oneLineMax || ((nd.tag == "tr" || b.role(n) == "row") && b.size[n] <= rowMax))
	if oneLine {
		if !head.empty() {
			head.addRaw(":")
		}
		b.flatten(&head, n)
		b.flush(&head, indent)
		return
	}
	inner := indent
	if !head.empty() {
		head.addRaw(":")
		b.lay.groups[g].header = int32(len(b.lay.lines))
		b.flush(&head, indent)
		inner = indent + 1
	}
	first := len(b.lay.lines)
	b.children(n, inner)
	if kind == "table" && len(b.lay.lines)-first > 1 {
		b.lay.groups[g].columns = int32(first)
	}
	if head.empty() && b.isItem(n) {
		for i := first + 1; i < len(b.lay.lines); i++ {
			b.lay.lines[i].indent++
		}
	}
}

// takeSegs returns an empty slice for a line's pieces, reusing one when it can: lines are
// many, and the layout recurses, so each level keeps its own while it works.
func (b *builder) takeSegs() []seg {
	if n := len(b.segPool); n > 0 {
		s := b.segPool[n-1]
		b.segPool = b.segPool[:n-1]
		return s[:0]
	}
	return make([]seg, 0, 16)
}

func (b *builder) putSegs(r *lineBuf) { b.segPool = append(b.segPool, r.segs) }

// keepLines marks node n, and every container around it, as never folded into one line.
func (b *builder) keepLines(n int32) {
	for ; n >= 0 && !b.lines[n]; n = b.p.nodes[n].parent {
		b.lines[n] = true
	}
}

// hasBigItems reports a list with more than one item where an item is more than a short
// link or phrase (a product card, say): such items get lines of their own.
func (b *builder) hasBigItems(n int32) bool {
	items, big := 0, false
	for c := b.p.nodes[n].first; c >= 0; c = b.p.nodes[c].next {
		if b.isItem(c) {
			items++
			big = big || b.size[c] > maxListItem
		}
	}
	return items > 1 && big
}

func headerPrefix(kind, label string) string {
	if label == "" {
		return kind
	}
	return kind + " " + quote(cutRunes(label, maxLabel))
}

// inline adds inline node c to the running line, splitting lines that get too long.
func (b *builder) inline(run *lineBuf, c int32, indent int) {
	nd := &b.p.nodes[c]
	switch {
	case nd.tag == "":
		text := b.p.tbuf[nd.start:nd.end]
		for run.chars+utf8.RuneCountInString(text) > maxChunk {
			head, rest := splitChunk(text, maxChunk-run.chars)
			if head == "" && run.empty() {
				head, rest = splitChunk(text, maxChunk)
			}
			if head != "" {
				run.addText(head)
			}
			b.flush(run, indent)
			text = rest
		}
		run.addText(text)
	case nd.elem >= 0 && !b.isContainerElem(int(nd.elem)):
		if run.chars+len(b.base[nd.elem]) > maxChunk {
			b.flush(run, indent)
		}
		run.addElem(nd.elem, len(b.base[nd.elem]))
	default:
		if nd.elem >= 0 {
			run.addElem(nd.elem, len(b.base[nd.elem]))
			run.addRaw(":")
		}
		for k := nd.first; k >= 0; k = b.p.nodes[k].next {
			if !b.skip[k] {
				b.inline(run, k, indent)
			}
		}
	}
}

// flatten adds the whole content of node n to one line: cells and items apart by " | ".
func (b *builder) flatten(run *lineBuf, n int32) {
	for c := b.p.nodes[n].first; c >= 0; c = b.p.nodes[c].next {
		nd := &b.p.nodes[c]
		if b.skip[c] {
			continue
		}
		switch {
		case nd.tag == "":
			run.addText(b.p.tbuf[nd.start:nd.end])
		case nd.elem >= 0 && !b.isContainerElem(int(nd.elem)):
			if isCellSep(nd.tag, b.role(c)) {
				run.sep()
			}
			run.addElem(nd.elem, len(b.base[nd.elem]))
		default:
			if isCellSep(nd.tag, b.role(c)) {
				run.sep()
			}
			if isHeading(nd.tag) && b.lo[c] >= b.hi[c] {
				run.addText(b.nodeText(c, oneLineMax))
				continue
			}
			if nd.elem >= 0 {
				run.addElem(nd.elem, len(b.base[nd.elem]))
				run.addRaw(":")
			}
			b.flatten(run, c)
		}
	}
}

func isCellSep(tag, role string) bool {
	switch tag {
	case "td", "th", "li", "dd":
		return true
	}
	return role == "cell" || role == "gridcell" || role == "columnheader" || role == "rowheader" || role == "listitem"
}

// flush ends the running line and appends it to the outline.
func (b *builder) flush(run *lineBuf, indent int) {
	if run.empty() {
		return
	}
	l := run.finish(b)
	l.indent = int32(min(indent, maxIndent))
	l.group, l.overlay = b.cur, b.curOv
	b.lay.lines = append(b.lay.lines, l)
	run.segs, run.chars = run.segs[:0], 0
}

// splitChunk cuts text at most n runes long at a space in its second half when there is
// one, and returns the two parts.
func splitChunk(text string, n int) (string, string) {
	if n <= 0 {
		return "", text
	}
	cut, k := 0, 0
	for cut < len(text) && k < n {
		_, size := utf8.DecodeRuneInString(text[cut:])
		cut += size
		k++
	}
	if cut >= len(text) {
		return text, ""
	}
	if sp := strings.LastIndexByte(text[:cut], ' '); sp > cut/2 {
		cut = sp
	}
	return strings.TrimSpace(text[:cut]), strings.TrimSpace(text[cut:])
}

// lineBuf collects a line's pieces: page text, elements and the outline's own words.
type lineBuf struct {
	segs  []seg
	chars int // runes so far, for splitting long lines
}

type seg struct {
	text string // page text, or the outline's own words when raw
	elem int32  // an element when >= 0
	raw  bool
	sep  bool // a cell separator
}

func (r *lineBuf) empty() bool { return len(r.segs) == 0 }

func (r *lineBuf) addText(t string) {
	if t == "" {
		return
	}
	r.segs = append(r.segs, seg{text: t, elem: -1})
	r.chars += utf8.RuneCountInString(t) + 1
}

func (r *lineBuf) addRaw(t string) { r.segs = append(r.segs, seg{text: t, elem: -1, raw: true}) }

func (r *lineBuf) addElem(i int32, size int) {
	r.segs = append(r.segs, seg{elem: i})
	r.chars += size + 1
}

func (r *lineBuf) sep() {
	if n := len(r.segs); n > 0 && !r.segs[n-1].sep && !(r.segs[n-1].raw && r.segs[n-1].text == ":") {
		r.segs = append(r.segs, seg{elem: -1, sep: true})
	}
}

// finish renders the pieces: text escaped, elements in their base rendering plus, for a
// field named only by a <label> that is not on this line, the label.
func (r *lineBuf) finish(b *builder) line {
	ctx := "" // the line's page text, for labels: built only when one is needed
	labelled := false
	for _, s := range r.segs {
		labelled = labelled || s.elem >= 0 && b.lay.labels[s.elem] != ""
	}
	if labelled {
		var plain strings.Builder
		for _, s := range r.segs {
			if s.elem < 0 && !s.raw && !s.sep {
				plain.WriteString(s.text)
				plain.WriteByte(' ')
			}
		}
		ctx = plain.String()
	}
	var out strings.Builder
	var l line
	elems := len(b.elemArena)
	pendingSep := false
	for _, s := range r.segs {
		if s.sep {
			pendingSep = out.Len() > 0
			continue
		}
		switch {
		case pendingSep:
			out.WriteString(" | ")
		case out.Len() > 0 && !(s.raw && (s.text == ":" || strings.HasPrefix(s.text, " "))):
			out.WriteByte(' ')
		}
		pendingSep = false
		switch {
		case s.elem >= 0:
			at := int32(out.Len())
			b.elemArena = append(b.elemArena, s.elem, at)
			out.WriteString(b.base[s.elem])
			for k := 0; k+1 < len(b.opts[s.elem]); k += 2 {
				b.elemArena = append(b.elemArena, b.opts[s.elem][k], at+b.opts[s.elem][k+1])
			}
			if lb := b.lay.labels[s.elem]; lb != "" && !strings.Contains(ctx, lb) {
				out.WriteString(" label=")
				out.WriteString(quote(lb))
			}
		case s.raw:
			out.WriteString(s.text)
		default:
			out.WriteString(escapeRefs(s.text))
			l.chars += int32(utf8.RuneCountInString(s.text))
		}
	}
	l.text = out.String()
	// The line's elements and offsets, as pairs in the shared arena.
	l.elems = b.elemArena[elems:len(b.elemArena):len(b.elemArena)]
	return l
}

// escapeRefs keeps page text from passing for an element: "[12]" in text is written
// "\[12]", so that every unescaped "[id]" in the outline is an element.
func escapeRefs(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '[' && isRef(s, i) {
			out.WriteByte('\\')
		}
		out.WriteByte(s[i])
	}
	return out.String()
}

// isRef reports whether s[i:] starts like an element: '[', digits, ']'.
func isRef(s string, i int) bool {
	j := i + 1
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j > i+1 && j < len(s) && s[j] == ']'
}
