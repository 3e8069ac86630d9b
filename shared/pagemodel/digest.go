package pagemodel

import "encoding/binary"

// maxDigest bounds the elements (and text lines) a digest describes; a larger page has no
// digest, so the step after it marks nothing (rather than everything past the bound).
const maxDigest = 600

// digestV2 starts a digest with states and text lines; a version-1 digest (signatures only,
// 8 bytes each) never has a length that leaves a remainder of 5 modulo 8, as this one does.
const digestV2 = 2

// Digest is the compact form of the page's Identity that the next step's change marks need:
// a version byte, the element count, each element's signature and state and each text line's
// hash, 8 bytes each; nil for a page with more than maxDigest elements. It lets the engine keep it on the task instead of reading the page back.
func (p *Page) Digest() []byte {
	id := p.Identity()
	if len(id.Signatures) > maxDigest {
		return nil
	}
	texts := id.Texts[:min(len(id.Texts), maxDigest)]
	out := make([]byte, 0, 5+16*len(id.Signatures)+8*len(texts))
	out = append(out, digestV2)
	out = binary.BigEndian.AppendUint32(out, uint32(len(id.Signatures)))
	for _, list := range [][]uint64{id.Signatures, id.States, texts} {
		for _, s := range list {
			out = binary.BigEndian.AppendUint64(out, s)
		}
	}
	return out
}

// ReadDigest returns the identity of the page that Digest described, nil for a malformed
// digest; a version-1 digest has only signatures, so values and text are taken as unchanged.
func ReadDigest(b []byte) *Identity {
	words := func(b []byte) []uint64 {
		out := make([]uint64, len(b)/8)
		for i := range out {
			out[i] = binary.BigEndian.Uint64(b[8*i:])
		}
		return out
	}
	if len(b)%8 != 5 || b[0] != digestV2 {
		return &Identity{Signatures: words(b)}
	}
	n := int(binary.BigEndian.Uint32(b[1:5]))
	rest := words(b[5:])
	if 2*n > len(rest) {
		return nil
	}
	return &Identity{Signatures: rest[:n], States: rest[n : 2*n], Texts: rest[2*n:]}
}
