package page

import "encoding/binary"

// maxDigest bounds the elements (and text lines) a digest describes; a larger page has no
// digest, so the step after it marks nothing (rather than everything past the bound).
const maxDigest = 600

// digestV2 starts a digest with states and text lines; a version-1 digest (signatures only,
// 8 bytes each) never has a length that leaves a remainder of 5 modulo 8, as this one does.
const digestV2 = 2

// Digest is the compact form of the page that the next step's change marks need (see
// Options.PreviousDigest): a version byte, the element count, each element's signature and
// state and each text line's hash, 8 bytes each; nil for a page with more than maxDigest
// elements. It lets the engine keep it on the task instead of reading the page back.
func (p *Page) Digest() []byte {
	v := p.view()
	if len(v.sigs) > maxDigest {
		return nil
	}
	texts := v.texts[:min(len(v.texts), maxDigest)]
	out := make([]byte, 0, 5+16*len(v.sigs)+8*len(texts))
	out = append(out, digestV2)
	out = binary.BigEndian.AppendUint32(out, uint32(len(v.sigs)))
	for _, list := range [][]uint64{v.sigs, v.states, texts} {
		for _, s := range list {
			out = binary.BigEndian.AppendUint64(out, s)
		}
	}
	return out
}

// fromDigest is the view of the page Digest described; a version-1 digest has only
// signatures, so values and text are taken as unchanged.
func fromDigest(b []byte) *view {
	words := func(b []byte) []uint64 {
		out := make([]uint64, len(b)/8)
		for i := range out {
			out[i] = binary.BigEndian.Uint64(b[8*i:])
		}
		return out
	}
	if len(b)%8 != 5 || b[0] != digestV2 {
		return &view{sigs: words(b)}
	}
	n := int(binary.BigEndian.Uint32(b[1:5]))
	rest := words(b[5:])
	if 2*n > len(rest) {
		return nil
	}
	return &view{sigs: rest[:n], states: rest[n : 2*n], texts: rest[2*n:]}
}
