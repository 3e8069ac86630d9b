package page

// stateAttrs are the attributes that hold what a user changes on an element without changing
// which element it is: what was typed or chosen, whether it is ticked, pressed or open.
var stateAttrs = map[string]bool{
	"value": true, "checked": true, "selected": true, "aria-checked": true, "aria-selected": true,
	"aria-pressed": true, "aria-expanded": true, "aria-current": true, "aria-invalid": true,
}

// state hashes element i's value and states (with a select's chosen options and a textarea's
// text), so that a typed value or a ticked box is told apart from a new element: the element
// keeps its signature, its state changes.
func (b *builder) state(i int) uint64 {
	e := b.p.elements[i]
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
		b.chosenOptions(b.p.nodes[b.p.info[i].node].first, &h)
	}
	return uint64(h)
}

// chosenOptions hashes the selected options under node c, by their text or value.
func (b *builder) chosenOptions(c int32, h *fnv64) {
	nodes := b.p.nodes
	for ; c >= 0; c = nodes[c].next {
		nd := &nodes[c]
		switch {
		case nd.tag == "option" && nd.elem >= 0:
			oe := b.p.elements[nd.elem]
			if _, ok := oe.Attr("selected"); ok {
				v, _ := oe.Attr("value")
				h.add(oe.Text + "\x00" + v)
			}
		case nd.tag == "option":
			if m := b.meta(c); m != nil && m.selected {
				h.add(b.nodeText(c, maxAttrValue) + "\x00" + m.value)
			}
		case nd.tag != "":
			b.chosenOptions(nd.first, h)
		}
	}
}
