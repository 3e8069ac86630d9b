package pagemodel

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	`<div><button id="12">Submit order</button><input id="13" type="text" placeholder="Email" aria-label="Email"/> Some plain text <a id="14" href="/help">Help</a></div>`,
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

// seed adds the seeds and the sample pages in testdata to f's corpus.
func seed(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	paths, err := filepath.Glob("testdata/*.html")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

func FuzzParse(f *testing.F) {
	seed(f)
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
		if again := Parse(dom).Fingerprint(); again != p.Fingerprint() {
			t.Fatalf("the page parsed twice: fingerprints %s and %s", p.Fingerprint(), again)
		}
	})
}

func FuzzRedactDOM(f *testing.F) {
	seed(f)
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
