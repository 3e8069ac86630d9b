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
	})
}

func FuzzRender(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "submit the order", uint16(50))
	}
	for _, dom := range fixtures(f) {
		f.Add(dom, "add to cart", uint16(120))
	}
	f.Fuzz(func(t *testing.T, dom, query string, budget uint16) {
		p := Parse(dom)
		r := Render(p, Options{Query: query, Budget: int(budget)})
		checkRendered(t, p, r, int(budget))
	})
}
