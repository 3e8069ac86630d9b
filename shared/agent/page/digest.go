package page

import "encoding/binary"

// maxDigest bounds the elements a digest describes; a larger page has no digest, so the step
// after it marks nothing new (rather than everything past the bound).
const maxDigest = 600

// Digest is the compact form of the page that the next step's new-element marks need (see
// Options.PreviousDigest): its elements' signatures, 8 bytes each; nil for a page with more than
// maxDigest elements. It lets the engine keep it on the task instead of reading the page back.
func (p *Page) Digest() []byte {
	sigs := p.layout().sigs
	if len(sigs) > maxDigest {
		return nil
	}
	out := make([]byte, 0, 8*len(sigs))
	for _, s := range sigs {
		out = binary.BigEndian.AppendUint64(out, s)
	}
	return out
}

// fromDigest is a page that stands for the one Digest described, for newMarks.
func fromDigest(b []byte) *Page {
	sigs := make([]uint64, len(b)/8)
	for i := range sigs {
		sigs[i] = binary.BigEndian.Uint64(b[8*i:])
	}
	p := &Page{}
	p.layoutOnce.Do(func() { p.lay = &layout{sigs: sigs} })
	return p
}
