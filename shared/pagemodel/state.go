package pagemodel

// stateAttrs are the attributes that hold what a user changes on an element without changing
// which element it is: what was typed or chosen, whether it is ticked, pressed or open.
var stateAttrs = map[string]bool{
	"value": true, "checked": true, "selected": true, "aria-checked": true, "aria-selected": true,
	"aria-pressed": true, "aria-expanded": true, "aria-current": true, "aria-invalid": true,
}

// state hashes element i's value and states (with a select's chosen options and a textarea's
// text), so that a typed value or a ticked box is told apart from a new element: the element
// keeps its signature, its state changes.
func (p *Page) state(i int) uint64 {
	e := p.elements[i]
	h := newFNV()
	for _, a := range e.Attrs {
		if stateAttrs[a.Name] && !(a.Name == "value" && e.Kind() == KindButton) {
			h.add(a.Name)
			h.add(a.Value)
		}
	}
	switch e.Tag {
	case "textarea":
		h.add(e.Text)
	case "select":
		p.chosenOptions(p.nodes[p.info[i].node].First, &h)
	}
	return uint64(h)
}

// chosenOptions hashes the selected options under node c, by their text or value.
func (p *Page) chosenOptions(c int32, h *fnv64) {
	nodes := p.nodes
	for ; c >= 0; c = nodes[c].Next {
		nd := &nodes[c]
		switch {
		case nd.Tag == "option" && nd.Elem >= 0:
			oe := p.elements[nd.Elem]
			if _, ok := oe.Attr("selected"); ok {
				v, _ := oe.Attr("value")
				h.add(oe.Text + "\x00" + v)
			}
		case nd.Tag == "option":
			if m := p.Meta(c); m != nil && m.Selected {
				h.add(p.NodeText(c, MaxAttrValue) + "\x00" + m.Value)
			}
		case nd.Tag != "":
			p.chosenOptions(nd.First, h)
		}
	}
}
