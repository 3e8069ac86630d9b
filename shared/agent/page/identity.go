package page

// Signature identifies the element at index i of Elements() without its id, as the change marks
// do: its tag, name, stable attributes and the text of the list item or row it sits in. Two
// elements with one signature are look-alikes the page does not tell apart.
func (p *Page) Signature(i int) uint64 {
	lay := p.layout()
	if i < 0 || i >= len(lay.sigs) {
		return 0
	}
	return lay.sigs[i]
}
