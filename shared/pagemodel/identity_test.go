package pagemodel

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	base := `<title>Results</title><ul><li><a id="1" href="/a">Alpha</a></li><li><a id="2" href="/b">Beta</a></li></ul><input id="3" name="q" value="socks">`
	same := map[string]string{
		"same page":      base,
		"ids renumbered": `<title>Results</title><ul><li><a id="11" href="/a">Alpha</a></li><li><a id="12" href="/b">Beta</a></li></ul><input id="13" name="q" value="socks">`,
		"whitespace and markup that shows nothing": "<title>Results</title>\n<ul>\n <li><a id=\"1\" href=\"/a\">Alpha</a></li>\n <li><a id=\"2\" href=\"/b\">Beta</a></li>\n</ul>\n<!-- x --><input id=\"3\" name=\"q\" value=\"socks\">",
	}
	other := map[string]string{
		"more results":   strings.Replace(base, "</ul>", `<li><a id="4" href="/c">Gamma</a></li></ul>`, 1),
		"a typed value":  strings.Replace(base, "socks", "wool socks", 1),
		"an error shown": base + `<div role="alert">No connection</div>`,
		"another title":  strings.Replace(base, "Results", "Results (page 2)", 1),
		"checked":        strings.Replace(base, `name="q"`, `name="q" checked`, 1),
	}
	want := Parse(base).Fingerprint()
	for name, dom := range same {
		if got := Parse(dom).Fingerprint(); got != want {
			t.Errorf("%s: fingerprint %s, want %s", name, got, want)
		}
	}
	for name, dom := range other {
		if got := Parse(dom).Fingerprint(); got == want {
			t.Errorf("%s: same fingerprint as the base page", name)
		}
	}
}

// TestFingerprintSeesChosenOption: a select whose chosen option changed is another page for
// the loop guard, even when the option has no id of its own.
func TestFingerprintSeesChosenOption(t *testing.T) {
	a := Parse(`<select id="10"><option>Paris</option><option>Lyon</option></select>`)
	b := Parse(`<select id="10"><option>Paris</option><option selected>Lyon</option></select>`)
	if a.Fingerprint() == b.Fingerprint() {
		t.Errorf("got equal fingerprints for different chosen options, want different")
	}
}

// TestSignature: an element keeps its signature when the extension renumbers it or the user
// changes its value, and look-alikes in different list items are told apart by the item's text.
func TestSignature(t *testing.T) {
	const list = `<ul><li>Red mug <button id="1">Add to cart</button></li><li>Blue mug <button id="2">Add to cart</button></li></ul>`
	tests := []struct {
		name     string
		a, b     string
		ai, bi   int // indexes into Elements()
		wantSame bool
	}{
		{"renumbered", `<input id="3" name="q">`, `<input id="30" name="q">`, 0, 0, true},
		{"a typed value", `<input id="3" name="q">`, `<input id="3" name="q" value="mugs">`, 0, 0, true},
		{"ticked", `<input id="3" type="checkbox" name="gift">`, `<input id="3" type="checkbox" name="gift" checked>`, 0, 0, true},
		{"look-alikes in two items", list, list, 0, 1, false},
		{"another name", `<input id="3" name="q">`, `<input id="3" name="email">`, 0, 0, false},
		{"another tag", `<button id="3">Go</button>`, `<a id="3">Go</a>`, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Parse(tc.a).Signature(tc.ai), Parse(tc.b).Signature(tc.bi)
			if got := a == b; got != tc.wantSame {
				t.Errorf("same signature: got %v, want %v", got, tc.wantSame)
			}
		})
	}
	if got := Parse(list).Signature(5); got != 0 {
		t.Errorf("Signature of an index past the elements: got %d, want 0", got)
	}
}

// TestDigestRoundTrip: what ReadDigest gives back is the identity the digest was made of, and
// malformed bytes give none.
func TestDigestRoundTrip(t *testing.T) {
	p := Parse(`<title>Cart</title><p>2 items</p><ul><li>Mug <input id="1" name="qty" value="2"></li></ul><button id="2">Check out</button>`)
	if got, want := ReadDigest(p.Digest()), p.Identity(); !reflect.DeepEqual(got, want) {
		t.Errorf("ReadDigest(Digest()): got %+v, want %+v", got, want)
	}
	if got := ReadDigest([]byte{digestV2, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8}); got != nil {
		t.Errorf("ReadDigest of a digest shorter than its count: got %+v, want nil", got)
	}
	var big strings.Builder
	for i := 0; i <= maxDigest; i++ {
		fmt.Fprintf(&big, `<button id="%d">b%d</button>`, i, i)
	}
	if d := Parse(big.String()).Digest(); d != nil {
		t.Errorf("a page over %d elements has a %d-byte digest, want none", maxDigest, len(d))
	}
}

// BenchmarkParse parses pages up to the 500,000 characters the API accepts, made of a sample
// catalogue page repeated.
func BenchmarkParse(b *testing.B) {
	products, err := os.ReadFile("testdata/products.html")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{50_000, 200_000, 500_000} {
		dom := strings.Repeat(string(products), n/len(products)+1)[:n]
		b.Run(strconv.Itoa(n/1000)+"K", func(b *testing.B) {
			b.SetBytes(int64(len(dom)))
			for b.Loop() {
				Parse(dom)
			}
		})
	}
}
