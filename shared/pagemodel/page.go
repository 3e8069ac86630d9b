// Package pagemodel reads the DOM string the extension sends (simplified, possibly
// templatized HTML in which the elements the agent can act on carry numeric ids) into a
// Page: its elements with ids, their kinds and attributes, its text and title, the tree
// they sit in, which fields are secret (their values masked), and what identifies each
// element across steps without its id (Signature) with the page's Fingerprint and Digest.
// It is the model both engines and the action cache read; the interact engine's prompt
// view of a page (shared/agent/page) is built on it.
//
// The DOM is untrusted: Parse never fails, whatever the markup, size or encoding.
package pagemodel

import (
	"strings"
	"sync"
)

// Attr is one attribute of an element that tells the model what the element is or does.
type Attr struct {
	Name  string
	Value string // empty for boolean attributes such as checked or disabled
}

// Boolean reports an attribute that holds by being there (checked, disabled), whose value
// is always empty.
func (a Attr) Boolean() bool { return boolAttrs[a.Name] }

// Element is an element with a numeric id: something the agent can click, type into or read.
type Element struct {
	ID    int
	Tag   string // lower case
	Attrs []Attr // the relevant attributes, in the order of keptAttrs
	Text  string // inner text, whitespace collapsed, at most maxElementText runes
}

// Attr returns the value of the named attribute and whether the element has it.
func (e Element) Attr(name string) (string, bool) {
	for _, a := range e.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// Kind is a coarse role of an element, for counts and summaries.
type Kind int

const (
	KindOther Kind = iota
	KindButton
	KindInput // text fields, checkboxes, radios, selects, sliders
	KindLink
)

var roleKinds = map[string]Kind{
	"button": KindButton, "menuitem": KindButton, "menuitemcheckbox": KindButton, "menuitemradio": KindButton,
	"tab": KindButton, "switch": KindButton,
	"link":    KindLink,
	"textbox": KindInput, "searchbox": KindInput, "combobox": KindInput, "checkbox": KindInput, "radio": KindInput,
	"slider": KindInput, "spinbutton": KindInput, "listbox": KindInput,
}

// Kind classifies the element by its role, else by its tag and type.
func (e Element) Kind() Kind {
	if role, ok := e.Attr("role"); ok {
		if k, ok := roleKinds[strings.ToLower(strings.TrimSpace(role))]; ok {
			return k
		}
	}
	switch e.Tag {
	case "button", "summary":
		return KindButton
	case "a":
		return KindLink
	case "textarea", "select":
		return KindInput
	case "input":
		switch typ, _ := e.Attr("type"); strings.ToLower(typ) {
		case "submit", "button", "reset", "image":
			return KindButton
		case "hidden":
			return KindOther
		}
		return KindInput
	}
	return KindOther
}

// Page is a parsed DOM.
type Page struct {
	elements []Element
	info     []elemInfo  // parallel to elements
	byID     map[int]int // id → index of its first element
	texts    []string    // plain text runs outside elements with ids, in document order
	title    string      // <title>, else the first <h1>

	// The tree of the page in document order: nodes[0] is the root, every node's parent
	// comes before it, and a text node's text is tbuf[Start:End].
	nodes []Node
	metas []NodeMeta
	tbuf  string

	identityOnce sync.Once
	ident        *Identity // built on first use by Signature, Fingerprint and Digest

	derivedMu sync.Mutex
	derived   map[any]*derivation
}

// Node is an element or a text of the page's tree. Tags that say nothing about structure
// (<b>, <span> without an id) make no Node: their text joins their parent's.
type Node struct {
	Tag                 string // lower case; "" for a text node
	Parent, First, Last int32  // -1 for none
	Next                int32  // the next sibling, -1 for none
	Elem                int32  // index of the element with an id that this node is, -1 for none
	meta                int32  // index into metas, -1 when it has none
	Start, End          int32  // text of a text node, in Text()
}

// NodeMeta is what a node's attributes say about it.
type NodeMeta struct {
	Role, Label, Name, ForID string
	Value                    string
	Selected                 bool
	Modal, Open              bool // aria-modal="true"; the open attribute of <dialog> and <details>
	Fixed                    bool // a style with position: fixed or sticky
	ConsentHint              bool // a class or id that names cookies or consent
}

// elemInfo is what the parser knows of an element beyond what Element exports.
type elemInfo struct {
	node         int32
	autocomplete string
	// inputMode, maxLength and masked (a style masks the text) tell a secret field in any
	// language (trust.SecretFields).
	inputMode string
	maxLength int
	masked    bool
	secret    bool // a password-like field: its value is masked
}

// Elements returns the elements with ids in document order. Callers must not modify it.
func (p *Page) Elements() []Element { return p.elements }

// HasElement reports whether an element with this id is on the page, so that an action
// such as click(12) can be checked against the DOM that was sent.
func (p *Page) HasElement(id int) bool {
	_, ok := p.byID[id]
	return ok
}

// Element returns the first element with this id.
func (p *Page) Element(id int) (Element, bool) {
	i, ok := p.byID[id]
	if !ok {
		return Element{}, false
	}
	return p.elements[i], true
}

// Texts returns the plain text runs outside elements with ids, in document order, each
// with whitespace collapsed. Callers must not modify it.
func (p *Page) Texts() []string { return p.texts }

// Title returns the page's <title>, else its first <h1>, else "".
func (p *Page) Title() string { return p.title }

// Nodes returns the page's tree in document order: Nodes()[0] is the root, and every node's
// parent comes before it. Callers must not modify it.
func (p *Page) Nodes() []Node { return p.nodes }

// Meta returns what node n's attributes say about it, nil when they say nothing.
func (p *Page) Meta(n int32) *NodeMeta {
	if m := p.nodes[n].meta; m >= 0 {
		return &p.metas[m]
	}
	return nil
}

// Role returns node n's ARIA role in lower case, "" for none.
func (p *Page) Role(n int32) string {
	if m := p.Meta(n); m != nil {
		return m.Role
	}
	return ""
}

// Text returns the text of all text nodes in document order, one after the other: a text
// node's text is Text()[Start:End].
func (p *Page) Text() string { return p.tbuf }

// ElementNode returns the node of the element at index i of Elements().
func (p *Page) ElementNode(i int) int32 { return p.info[i].node }

// IsItem reports list items and rows: the containers whose text tells look-alike elements in
// them apart, and which a rendering keeps apart.
func (p *Page) IsItem(n int32) bool {
	switch p.nodes[n].Tag {
	case "li", "tr", "dt", "dd":
		return true
	}
	switch p.Role(n) {
	case "listitem", "row", "article", "option", "treeitem":
		return true
	}
	return false
}

// NodeText returns the text of node n's subtree outside elements with ids, at most limit
// runes, looking at no more than a few hundred nodes.
func (p *Page) NodeText(n int32, limit int) string {
	var acc textAcc
	visited := 0
	var walk func(int32)
	walk = func(c int32) {
		for ; c >= 0 && !acc.cut && visited < 400; c = p.nodes[c].Next {
			visited++
			nd := &p.nodes[c]
			switch {
			case nd.Tag == "":
				acc.add(p.tbuf[nd.Start:nd.End], limit)
				acc.add(" ", limit)
			case nd.Elem >= 0:
			default:
				walk(nd.First)
			}
		}
	}
	if p.nodes[n].Tag == "" {
		return p.tbuf[p.nodes[n].Start:p.nodes[n].End]
	}
	walk(p.nodes[n].First)
	return acc.String()
}

// derivation is one structure derived from a page, built once.
type derivation struct {
	once sync.Once
	v    any
}

// Derive returns build(), built once per key for this page: a structure that depends on the
// page alone (the prompt view's layout, say) is then shared by every caller instead of being
// built again for each.
func (p *Page) Derive(key any, build func() any) any {
	p.derivedMu.Lock()
	d, ok := p.derived[key]
	if !ok {
		if p.derived == nil {
			p.derived = map[any]*derivation{}
		}
		d = &derivation{}
		p.derived[key] = d
	}
	p.derivedMu.Unlock()
	d.once.Do(func() { d.v = build() })
	return d.v
}
