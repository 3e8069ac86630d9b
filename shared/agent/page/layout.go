package page

import (
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
)

const (
	oneLineMax  = 200 // runes: a block whose content fits renders as one line
	rowMax      = 600 // runes: a table row stays one line up to this size
	maxListItem = 48  // runes: a list whose items are all this short may be one line
	maxChunk    = 300 // runes of a line of running text; longer runs are split
	maxIndent   = 10  // levels of indentation; deeper containers do not indent further
	maxLabel    = 80  // runes of a container's label in its header line
	labelScan   = 24  // nodes searched for a container's heading
)

// layout is the page as an outline: lines in document order, each with the elements it
// shows and the containers (groups) it belongs to. It depends only on the page, so it is
// built once and shared by every rendering.
type layout struct {
	lines    []line
	groups   []group
	overlays []overlay
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
	p         *pagemodel.Page
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

// layoutKey is the key the layout is kept under on a page (pagemodel.Page.Derive).
type layoutKey struct{}

// layoutOf returns the page's layout, built on its first use and kept with the page.
func layoutOf(p *pagemodel.Page) *layout {
	return p.Derive(layoutKey{}, func() any { return buildLayout(p) }).(*layout)
}

func buildLayout(p *pagemodel.Page) *layout {
	n := len(p.Nodes())
	b := &builder{
		p: p, lay: &layout{}, size: make([]int32, n), block: make([]bool, n), hasElem: make([]bool, n),
		lo: make([]int32, n), hi: make([]int32, n), skip: make([]bool, n), lines: make([]bool, n), ov: make([]int32, n),
		base: make([]string, len(p.Elements())), opts: make([][]int32, len(p.Elements())), cur: -1, curOv: -1,
	}
	// Sized for a typical page, where a line holds about three nodes or more: growing these
	// slices would cost more than filling them.
	b.lay.lines = make([]line, 0, n/3+16)
	b.lay.groups = make([]group, 0, n/3+16)
	b.elemArena = make([]int32, 0, 2*len(p.Elements())+2)
	b.measure()
	b.lay.labels = b.findLabels()
	b.findOverlays()
	if n > 0 {
		b.children(0, 0)
	}
	return b.lay
}

// isContainerElem reports an element that holds other elements (a select's options aside).
func (b *builder) isContainerElem(i int) bool {
	nd := b.p.ElementNode(i)
	return b.hasElem[nd] && b.p.Nodes()[nd].Tag != "select"
}

// measure computes, bottom up, which nodes are blocks and hold elements, then each
// element's rendering and each node's flattened size.
func (b *builder) measure() {
	b.spanElements()
	b.markBlocks()
	for i := range b.p.Elements() {
		b.base[i] = b.formatBase(i)
	}
	b.sizeNodes()
	// Tables and lists of cards keep a line per row or card, and so does whatever holds
	// them.
	nodes := b.p.Nodes()
	for i := range nodes {
		n := int32(i)
		if nodes[i].Tag != "" && (neverOneLine[nodes[i].Tag] || b.containerKind(n) == "table" || b.hasBigItems(n)) {
			b.keepLines(n)
		}
	}
}

// spanElements computes the elements each node's subtree holds, and which nodes hold any.
func (b *builder) spanElements() {
	nodes := b.p.Nodes()
	for i := range nodes {
		b.lo[i], b.hi[i] = int32(len(b.p.Elements())), 0
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := &nodes[i]
		if nd.Elem >= 0 {
			b.lo[i], b.hi[i] = min(b.lo[i], nd.Elem), max(b.hi[i], nd.Elem+1)
		}
		if par := nd.Parent; par >= 0 {
			b.lo[par], b.hi[par] = min(b.lo[par], b.lo[i]), max(b.hi[par], b.hi[i])
			if nd.Elem >= 0 || b.hasElem[i] {
				b.hasElem[par] = true
			}
		}
	}
}

// markBlocks marks the nodes that start a line: a block tag starts one, and so does anything
// holding one, except an element without elements inside, which renders as one piece whatever
// it holds.
func (b *builder) markBlocks() {
	nodes := b.p.Nodes()
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := &nodes[i]
		if pagemodel.IsBlock(nd.Tag) || blockRoles[b.p.Role(int32(i))] || nd.Tag == "td" || nd.Tag == "th" {
			b.block[i] = true
		}
		par := nd.Parent
		if par >= 0 && b.block[i] && (nodes[par].Elem < 0 || b.isContainerElem(int(nodes[par].Elem))) {
			b.block[par] = true
		}
	}
}

// sizeNodes computes each node's flattened size from its text and its elements' renderings.
func (b *builder) sizeNodes() {
	nodes := b.p.Nodes()
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := &nodes[i]
		switch {
		case nd.Tag == "":
			b.size[i] = int32(utf8.RuneCountInString(b.p.Text()[nd.Start:nd.End])) + 1
		case nd.Elem >= 0 && !b.isContainerElem(int(nd.Elem)):
			b.size[i] = int32(len(b.base[nd.Elem])) + 1
		case nd.Elem >= 0:
			b.size[i] += int32(len(b.base[nd.Elem])) + 1
		}
		if nd.Parent >= 0 {
			b.size[nd.Parent] = min(b.size[nd.Parent]+b.size[i], 1<<30)
		}
	}
}

// formatBase renders element i without marks or label: a select with its options (the
// selected ones marked "*"), an element holding others without its text.
func (b *builder) formatBase(i int) string {
	e := b.p.Elements()[i]
	s := formatElement(e, !b.isContainerElem(i))
	if e.Tag != "select" {
		return s
	}
	opts, anySelected := b.selectOptions(b.p.Nodes()[b.p.ElementNode(i)].First)
	if len(opts) == 0 {
		return s
	}
	_, multiple := e.Attr("multiple")
	if !anySelected && !multiple {
		opts[0].selected = true // what a browser shows
	}
	var out strings.Builder
	out.WriteString(s)
	b.writeOptions(&out, i, opts)
	return out.String()
}

// selectOption is an option of a select: its text, its element (-1 for none) and whether it is
// selected.
type selectOption struct {
	text     string
	elem     int32
	selected bool
}

// selectOptions are the options among the nodes from c on and their descendants, in order.
func (b *builder) selectOptions(c int32) (opts []selectOption, anySelected bool) {
	nodes := b.p.Nodes()
	for ; c >= 0; c = nodes[c].Next {
		nd := &nodes[c]
		if nd.Tag != "option" {
			if nd.Tag != "" {
				inner, sel := b.selectOptions(nd.First)
				opts, anySelected = append(opts, inner...), anySelected || sel
			}
			continue
		}
		o := selectOption{elem: nd.Elem}
		if nd.Elem >= 0 {
			oe := b.p.Elements()[nd.Elem]
			o.text = oe.Text
			_, o.selected = oe.Attr("selected")
			if o.text == "" {
				o.text, _ = oe.Attr("value")
			}
		} else {
			o.text = b.p.NodeText(c, pagemodel.MaxAttrValue)
			if m := b.p.Meta(c); m != nil {
				o.selected = m.Selected
				if o.text == "" {
					o.text = m.Value
				}
			}
		}
		anySelected = anySelected || o.selected
		opts = append(opts, o)
	}
	return opts, anySelected
}

// writeOptions writes the options of select i, within maxOption runes (a selected one always),
// each with its id when it has one, noting where (b.opts), and a count of those left out.
func (b *builder) writeOptions(out *strings.Builder, i int, opts []selectOption) {
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
			out.WriteString("[" + itoa(b.p.Elements()[o.elem].ID) + "] ")
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
}

var blockRoles = map[string]bool{
	"dialog": true, "alertdialog": true, "list": true, "listitem": true, "row": true, "table": true,
	"grid": true, "treegrid": true, "navigation": true, "region": true, "main": true, "banner": true,
	"contentinfo": true, "complementary": true, "form": true, "search": true, "article": true,
	"alert": true, "status": true, "menu": true, "menubar": true, "tablist": true, "tabpanel": true,
	"toolbar": true, "tree": true, "group": true, "heading": true, "feed": true, "rowgroup": true,
}

// findLabels returns, per element without a name of its own, the text of its <label>:
// the one whose for= names the element's id or name, or the one around it.
func (b *builder) findLabels() []string {
	labels := make([]string, len(b.p.Elements()))
	byFor := map[string]string{}
	for i := range b.p.Nodes() {
		nd := &b.p.Nodes()[i]
		if nd.Tag != "label" {
			continue
		}
		if m := b.p.Meta(int32(i)); m != nil && m.ForID != "" {
			if _, dup := byFor[m.ForID]; !dup {
				byFor[m.ForID] = b.p.NodeText(int32(i), maxLabel)
			}
		}
	}
	for i, e := range b.p.Elements() {
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
		for a, k := b.p.Nodes()[b.p.ElementNode(i)].Parent, 0; a > 0 && k < 4; a, k = b.p.Nodes()[a].Parent, k+1 {
			if b.p.Nodes()[a].Tag == "label" {
				labels[i] = b.p.NodeText(a, maxLabel)
				break
			}
		}
	}
	return labels
}

// hasOwnName reports whether an element names itself (text, aria-label, placeholder,
// title, alt, or the value of a button).
func hasOwnName(e pagemodel.Element) bool {
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
			if a.Value != "" && e.Kind() == pagemodel.KindButton {
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
		for ; c >= 0 && found < 0 && visited < labelScan; c = b.p.Nodes()[c].Next {
			visited++
			nd := &b.p.Nodes()[c]
			if isHeading(nd.Tag) || b.p.Role(c) == "heading" || nd.Tag == "legend" || nd.Tag == "caption" {
				found = c
				return
			}
			if nd.Tag != "" && nd.Elem < 0 {
				walk(nd.First)
			}
		}
	}
	walk(b.p.Nodes()[n].First)
	if found < 0 {
		return "", -1
	}
	return b.p.NodeText(found, maxLabel), found
}

// labelText returns the text node that repeats a container's aria-label (the parser keeps
// labels as text), or -1.
func (b *builder) labelText(n int32, label string) int32 {
	c := b.p.Nodes()[n].First
	if c >= 0 && b.p.Nodes()[c].Tag == "" && b.p.NodeText(c, pagemodel.MaxAttrValue) == pagemodel.Collapse(label, pagemodel.MaxAttrValue) {
		return c
	}
	return -1
}

func isHeading(tag string) bool {
	return len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6'
}

// containerKind names what a container is, for its header line, or "" for an anonymous one.
func (b *builder) containerKind(n int32) string {
	if kind, ok := roleKinds[b.p.Role(n)]; ok {
		return kind
	}
	switch tag := b.p.Nodes()[n].Tag; tag {
	case "form", "search", "table", "nav", "header", "footer", "main", "aside", "section", "article", "fieldset", "details":
		return tag
	case "ul", "ol", "dl":
		return "list"
	case "menu":
		return "menu"
	}
	if m := b.p.Meta(n); m != nil && m.Label != "" && b.p.Nodes()[n].Elem < 0 {
		return "group"
	}
	return ""
}

// roleKinds name the containers by their ARIA role, which goes before their tag.
var roleKinds = map[string]string{
	"form": "form", "search": "search", "list": "list", "listbox": "list", "feed": "list",
	"menu": "menu", "menubar": "menu", "tablist": "tabs", "table": "table", "grid": "table",
	"treegrid": "table", "navigation": "nav", "banner": "header", "contentinfo": "footer",
	"main": "main", "complementary": "aside", "region": "section", "article": "article",
	"alert": "alert", "status": "status", "toolbar": "toolbar", "tree": "tree",
	"tabpanel": "tab panel", "group": "group",
}

// containerLabel is the name shown in a container's header, and the heading node it takes
// the name from (not repeated below it), or -1.
func (b *builder) containerLabel(n int32, kind string) (string, int32) {
	if m := b.p.Meta(n); m != nil {
		if m.Label != "" {
			return m.Label, b.labelText(n, m.Label)
		}
		if kind == "form" && m.Name != "" {
			return m.Name, -1
		}
	}
	switch kind {
	case "section", "article", "aside", "main", "fieldset", "table", "form", "dialog", "alertdialog", "banner", "group", "tab panel":
		return b.headingOf(n)
	}
	return "", -1
}

// neverOneLine are the containers whose children always get lines of their own.
var neverOneLine = map[string]bool{
	"table": true, "thead": true, "tbody": true, "tfoot": true, "dl": true,
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
	for c := b.p.Nodes()[n].First; c >= 0; c = b.p.Nodes()[c].Next {
		nd := &b.p.Nodes()[c]
		if b.skip[c] || nd.Tag == "head" {
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
	nd := &b.p.Nodes()[n]
	g := b.openGroup()
	defer b.closeGroup(g)
	prevOv := b.curOv
	if o := b.ov[n]; o >= 0 {
		b.curOv = o
		defer func() { b.curOv = prevOv }()
	}
	head := lineBuf{segs: b.takeSegs()}
	defer b.putSegs(&head)
	if nd.Elem >= 0 && !b.isContainerElem(int(nd.Elem)) {
		head.addElem(nd.Elem, len(b.base[nd.Elem]))
		b.flush(&head, indent)
		return
	}
	if nd.Tag == "br" || nd.Tag == "hr" {
		return
	}
	kind, label := b.headerOf(n)
	switch {
	case nd.Elem >= 0:
		head.addElem(nd.Elem, len(b.base[nd.Elem]))
		if o := b.ov[n]; o >= 0 {
			head.addRaw(" (" + overlayNote(b.lay.overlays[o]) + ")")
		}
	case kind != "":
		head.addRaw(headerPrefix(kind, label))
	}
	oneLine := !b.lines[n] && (b.size[n] <= oneLineMax || ((nd.Tag == "tr" || b.p.Role(n) == "row") && b.size[n] <= rowMax))
	if oneLine {
		if !head.empty() {
			head.addRaw(":")
		}
		b.flatten(&head, n)
		b.flush(&head, indent)
		return
	}
	b.layOut(&head, n, g, indent, kind)
}

// headerOf is what the header line of block node n names: the kind of overlay or container and
// its label. The label's node, unless it holds elements, is not laid out again.
func (b *builder) headerOf(n int32) (kind, label string) {
	labelNode := int32(-1)
	if o := b.ov[n]; o >= 0 {
		ov := b.lay.overlays[o]
		kind, labelNode = overlayHeader(ov), ov.labelNode
	} else if kind = b.containerKind(n); kind != "" {
		label, labelNode = b.containerLabel(n, kind)
	}
	if labelNode >= 0 && !b.hasElem[labelNode] {
		b.skip[labelNode] = true
	}
	return kind, label
}

// layOut lays out block node n of group g that does not fit one line: its header line, if it
// has one, then its children indented under it. A table's lines after the first are its rows
// (the group's columns); an item's lines after its first are indented under it.
func (b *builder) layOut(head *lineBuf, n, g int32, indent int, kind string) {
	inner := indent
	if !head.empty() {
		head.addRaw(":")
		b.lay.groups[g].header = int32(len(b.lay.lines))
		b.flush(head, indent)
		inner = indent + 1
	}
	first := len(b.lay.lines)
	b.children(n, inner)
	if kind == "table" && len(b.lay.lines)-first > 1 {
		b.lay.groups[g].columns = int32(first)
	}
	if b.p.IsItem(n) {
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
	for ; n >= 0 && !b.lines[n]; n = b.p.Nodes()[n].Parent {
		b.lines[n] = true
	}
}

// hasBigItems reports a list with more than one item where an item is more than a short
// link or phrase (a product card, say): such items get lines of their own.
func (b *builder) hasBigItems(n int32) bool {
	items, big := 0, false
	for c := b.p.Nodes()[n].First; c >= 0; c = b.p.Nodes()[c].Next {
		if b.p.IsItem(c) {
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
	nd := &b.p.Nodes()[c]
	switch {
	case nd.Tag == "":
		text := b.p.Text()[nd.Start:nd.End]
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
	case nd.Elem >= 0 && !b.isContainerElem(int(nd.Elem)):
		if run.chars+len(b.base[nd.Elem]) > maxChunk {
			b.flush(run, indent)
		}
		run.addElem(nd.Elem, len(b.base[nd.Elem]))
	default:
		if nd.Elem >= 0 {
			run.addElem(nd.Elem, len(b.base[nd.Elem]))
			run.addRaw(":")
		}
		for k := nd.First; k >= 0; k = b.p.Nodes()[k].Next {
			if !b.skip[k] {
				b.inline(run, k, indent)
			}
		}
	}
}

// flatten adds the whole content of node n to one line: cells and items apart by " | ".
func (b *builder) flatten(run *lineBuf, n int32) {
	for c := b.p.Nodes()[n].First; c >= 0; c = b.p.Nodes()[c].Next {
		nd := &b.p.Nodes()[c]
		if b.skip[c] {
			continue
		}
		switch {
		case nd.Tag == "":
			run.addText(b.p.Text()[nd.Start:nd.End])
		case nd.Elem >= 0 && !b.isContainerElem(int(nd.Elem)):
			if isCellSep(nd.Tag, b.p.Role(c)) {
				run.sep()
			}
			run.addElem(nd.Elem, len(b.base[nd.Elem]))
		default:
			if isCellSep(nd.Tag, b.p.Role(c)) {
				run.sep()
			}
			if isHeading(nd.Tag) && b.lo[c] >= b.hi[c] {
				run.addText(b.p.NodeText(c, oneLineMax))
				continue
			}
			if nd.Elem >= 0 {
				run.addElem(nd.Elem, len(b.base[nd.Elem]))
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
	ctx := r.labelContext(b)
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
		l.chars += b.writeSeg(&out, s, ctx)
	}
	l.text = out.String()
	// The line's elements and offsets, as pairs in the shared arena.
	l.elems = b.elemArena[elems:len(b.elemArena):len(b.elemArena)]
	return l
}

// labelContext is the line's page text, against which a field's label is checked: built only
// when a field on the line has a label.
func (r *lineBuf) labelContext(b *builder) string {
	labelled := false
	for _, s := range r.segs {
		labelled = labelled || s.elem >= 0 && b.lay.labels[s.elem] != ""
	}
	if !labelled {
		return ""
	}
	var plain strings.Builder
	for _, s := range r.segs {
		if s.elem < 0 && !s.raw && !s.sep {
			plain.WriteString(s.text)
			plain.WriteByte(' ')
		}
	}
	return plain.String()
}

// writeSeg writes one piece of a line: an element (noting it and its options' offsets in the
// arena, with its label unless ctx has it), the builder's own text, or page text escaped. It
// returns the runes of page text written.
func (b *builder) writeSeg(out *strings.Builder, s seg, ctx string) int32 {
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
		return 0
	case s.raw:
		out.WriteString(s.text)
		return 0
	}
	out.WriteString(escapeRefs(s.text))
	return int32(utf8.RuneCountInString(s.text))
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
