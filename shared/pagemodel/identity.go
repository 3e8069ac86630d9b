package pagemodel

// maxContext is the bytes of the text around an element that its signature hashes.
const maxContext = 120

// Identity is what tells a page's elements and text apart across steps without their ids,
// which the extension may renumber: per element its signature (what it is) and state (its
// value and states), per text run a hash. A change mark compares two of them; an Identity
// read from an old digest has no states or texts (nil).
type Identity struct {
	Signatures, States, Texts []uint64
}

// Identity returns the page's identity, built once; nil for a nil page. Callers must not
// modify it.
func (p *Page) Identity() *Identity {
	if p == nil {
		return nil
	}
	p.identityOnce.Do(func() {
		id := &Identity{
			Signatures: make([]uint64, len(p.elements)),
			States:     make([]uint64, len(p.elements)),
			Texts:      make([]uint64, len(p.texts)),
		}
		for i, e := range p.elements {
			id.Signatures[i], id.States[i] = signature(e, p.context(i)), p.state(i)
		}
		for i, t := range p.texts {
			id.Texts[i] = HashText(t)
		}
		p.ident = id
	})
	return p.ident
}

// Signature identifies the element at index i of Elements() without its id, as the change marks
// do: its tag, name, stable attributes and the text of the list item or row it sits in. Two
// elements with one signature are look-alikes the page does not tell apart.
func (p *Page) Signature(i int) uint64 {
	sigs := p.Identity().Signatures
	if i < 0 || i >= len(sigs) {
		return 0
	}
	return sigs[i]
}

// HashText is the hash an Identity keeps of a text run.
func HashText(t string) uint64 {
	h := newFNV()
	h.add(t)
	return uint64(h)
}

// context hashes the text around element i that tells it apart from its look-alikes:
// the text of the list item or row it is in. Elements outside items have none (their
// signature then tells look-alikes apart by their order): the text of any larger
// container changes whenever anything is added to it.
func (p *Page) context(i int) uint64 {
	nodes := p.nodes
	c := nodes[p.info[i].node].Parent
	for k := 0; c > 0 && !p.IsItem(c); k++ {
		if k == 6 {
			c = 0
			break
		}
		c = nodes[c].Parent
	}
	h := newFNV()
	if c <= 0 {
		return uint64(h)
	}
	// The first bytes of its text nodes, in document order.
	budget := maxContext
	for k := nodes[c].First; k >= 0 && budget > 0; {
		nd := &nodes[k]
		if nd.Tag == "" {
			t := p.tbuf[nd.Start:min(nd.End, nd.Start+int32(budget))]
			h.add(t)
			budget -= len(t)
		}
		switch {
		case nd.Tag != "" && nd.Elem < 0 && nd.First >= 0:
			k = nd.First
		default:
			for k >= 0 && k != c && nodes[k].Next < 0 {
				k = nodes[k].Parent
			}
			if k < 0 || k == c {
				return uint64(h)
			}
			k = nodes[k].Next
		}
	}
	return uint64(h)
}
