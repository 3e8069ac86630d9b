package page

import (
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	exampleDOM,
	"",
	"<",
	"</",
	"<a id=1",
	`<a id="1`,
	"<!--",
	"<script>",
	"<textarea id=3>",
	"<input id=8/>",
	`<div id="1"><div id="1"><b>x</b></div>`,
	"T1: <a id=$1>$2</a>\n\n{T1(5,\"x\")}{T1(",
	"T1: $1$1$1$1\n\n{T1(\"\\u00e9\\ud83d\")}",
	"\xff<b id=\"2\">\xc3</b>&#0;&#xD800;&amp",
	`<select id="4"><option>a<option>b</select><td>c<td>d`,
	`<textarea id="1"/><input id="2" type="password" value="s"><textarea autocomplete="cc-csc">9</textarea>`,
	`<div role="dialog" aria-modal="true" aria-label="Cookies"><p>We use cookies</p><button id="5">Accept all</button></div>`,
	"T1: <input id=$1 type=password value=$2>\n\n{T1(3,\"pw\")}{T1(4,5)}",
	`<ul><li>a<li>b<table><tr><td>x<tr><td>y</table><p>p<div>d</div>`,
	`<label for="9">Name</label><input id=9/><p>[9] button</p>`,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, dom := range fixtures(f) {
		f.Add(dom)
	}
	f.Fuzz(func(t *testing.T, dom string) {
		p := Parse(dom)
		ids := map[int]bool{}
		for _, e := range p.Elements() {
			ids[e.ID] = true
			if !p.HasElement(e.ID) {
				t.Fatalf("element %d listed but HasElement is false", e.ID)
			}
			if first, ok := p.Element(e.ID); !ok || first.ID != e.ID {
				t.Fatalf("Element(%d) returned %+v, %v", e.ID, first, ok)
			}
			if !utf8.ValidString(e.Text) || utf8.RuneCountInString(e.Text) > maxElementText+1 {
				t.Fatalf("element %d text %q: invalid or too long", e.ID, e.Text)
			}
			for _, a := range e.Attrs {
				if !utf8.ValidString(a.Value) {
					t.Fatalf("element %d attribute %s is not valid UTF-8", e.ID, a.Name)
				}
			}
		}
		if len(ids) != len(p.byID) {
			t.Fatalf("%d distinct ids listed, HasElement knows %d", len(ids), len(p.byID))
		}
		for id := range p.byID {
			if !ids[id] {
				t.Fatalf("HasElement(%d) is true but no element has that id", id)
			}
		}
		for _, s := range p.Texts() {
			if s == "" || !utf8.ValidString(s) {
				t.Fatalf("text run %q: empty or invalid", s)
			}
		}
		checkSummary(t, p.Summary())
		for _, o := range p.Overlays() {
			if o.DismissID >= 0 && !p.HasElement(o.DismissID) {
				t.Fatalf("overlay %+v: dismiss id is no element", o)
			}
		}
		if again := Parse(dom).Fingerprint(); again != p.Fingerprint() {
			t.Fatalf("the page parsed twice: fingerprints %s and %s", p.Fingerprint(), again)
		}
	})
}

func FuzzRender(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, exampleDOM, "submit the order", uint16(50))
	}
	for _, dom := range fixtures(f) {
		f.Add(dom, "", "add to cart", uint16(120))
	}
	f.Fuzz(func(t *testing.T, dom, prev, query string, budget uint16) {
		p := Parse(dom)
		r := Render(p, Options{Query: query, Budget: int(budget), Previous: Parse(prev)})
		checkRendered(t, p, r, int(budget))
		// The kept digest stands for the page it came from, whatever the page (within its bounds).
		pp := Parse(prev)
		if d := pp.Digest(); d != nil && len(pp.Texts()) <= maxDigest {
			if byDigest := Render(p, Options{Query: query, Budget: int(budget), PreviousDigest: d}); byDigest.Text != r.Text {
				t.Errorf("rendered against the digest:\n%s\nagainst the page:\n%s", byDigest.Text, r.Text)
			}
		}
		for _, sig := range p.ErrorSignals(pp.Digest()) {
			if sig.Text == "" || utf8.RuneCountInString(sig.Text) > maxSignalText+1 {
				t.Errorf("error signal %+v: want a text of 1 to %d runes", sig, maxSignalText)
			}
		}
	})
}

func FuzzRedactDOM(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, dom := range fixtures(f) {
		f.Add(dom)
	}
	f.Fuzz(func(t *testing.T, dom string) {
		red := RedactDOM(dom)
		p := Parse(red)
		for i, e := range p.Elements() {
			if !p.Secret(e.ID) || p.info[i].node < 0 {
				continue
			}
			if v, _ := e.Attr("value"); v != "" && v != Mask {
				t.Fatalf("secret field %d keeps value %q after redaction", e.ID, v)
			}
		}
		if len(secretValues(expandTemplates(dom))) == 0 && red != dom {
			t.Fatalf("nothing to mask, yet the DOM changed:\n%q\n%q", dom, red)
		}
	})
}
