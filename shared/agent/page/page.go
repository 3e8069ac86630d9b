// Package page turns the DOM string the extension sends (simplified, possibly templatized
// HTML in which the elements the agent can act on carry numeric ids) into the page part of
// the agent's prompt: an indented outline of the page in document order where text stays
// with its elements, open dialogs and cookie banners are marked, password-like values are
// masked and elements new since the previous step are starred, cut to a token budget. It
// also gives the engine what it needs about a page: its overlays and the control that
// dismisses each, which fields are secret, a DOM with their values masked for storage, a
// fingerprint and the changes since the previous page.
//
// The DOM is untrusted: Parse never fails, whatever the markup, size or encoding.
package page

import (
	"strings"
	"sync"
)

// Attr is one attribute of an element that tells the model what the element is or does.
type Attr struct {
	Name  string
	Value string // empty for boolean attributes such as checked or disabled
}

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
	elements  []Element
	info      []elemInfo  // parallel to elements
	byID      map[int]int // id → index of its first element
	texts     []string    // plain text runs outside elements with ids, in document order
	textChars int         // runes in texts
	domChars  int         // runes in the DOM as received
	title     string      // <title>, else the first <h1>

	// The tree of the page in document order: nodes[0] is the root, every node's parent
	// comes before it, and a text node's text is tbuf[start:end].
	nodes []node
	metas []nodeMeta
	tbuf  string

	layoutOnce sync.Once
	lay        *layout // built on first use by Render, Overlays, Fingerprint and Diff
}

// node is an element or a text of the page's tree. Tags that say nothing about structure
// (<b>, <span> without an id) make no node: their text joins their parent's.
type node struct {
	tag                 string // lower case; "" for a text node
	parent, first, last int32  // -1 for none
	next                int32  // the next sibling, -1 for none
	elem                int32  // index of the element with an id that this node is, -1 for none
	meta                int32  // index into metas, -1 when it has none
	start, end          int32  // text of a text node, in tbuf
}

// nodeMeta is what a node's attributes say about it.
type nodeMeta struct {
	role, label, name, forID string
	value                    string
	selected                 bool
	modal, open              bool // aria-modal="true"; the open attribute of <dialog> and <details>
	fixed                    bool // a style with position: fixed or sticky
	consentHint              bool // a class or id that names cookies or consent
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

// Counts are the sizes of a page.
type Counts struct {
	Elements  int // elements with ids
	Buttons   int
	Inputs    int
	Links     int
	TextChars int // runes of plain text outside elements
	DOMChars  int // runes of the DOM as received
}

// Counts returns the page's sizes.
func (p *Page) Counts() Counts {
	c := Counts{Elements: len(p.elements), TextChars: p.textChars, DOMChars: p.domChars}
	for _, e := range p.elements {
		switch e.Kind() {
		case KindButton:
			c.Buttons++
		case KindInput:
			c.Inputs++
		case KindLink:
			c.Links++
		}
	}
	return c
}
