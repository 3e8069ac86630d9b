package page

import (
	"testing"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
)

// renderSeeds are pages whose rendering has edges: dialogs and banners, tables and lists,
// labels, selects, secret fields and text that looks like an element reference.
var renderSeeds = []string{
	exampleDOM,
	"",
	`<div role="dialog" aria-modal="true" aria-label="Cookies"><p>We use cookies</p><button id="5">Accept all</button></div>`,
	`<div class="cookie-banner" style="position:fixed"><p>Cookies help us</p><button id="1">OK</button></div><main><a id="2">Home</a></main>`,
	`<ul><li>a<li>b<table><tr><th>Name<th>Price<tr><td>x<td><button id="3">Buy</button></table><p>p<div>d</div>`,
	`<label for="9">Name</label><input id=9/><p>[9] button</p>`,
	`<select id="4"><option>a<option selected>b</select><textarea id="1">notes</textarea><input id="2" type="password" value="s">`,
	`<div role="alert">Invalid email address</div><input id="6" aria-invalid="true" name="email">`,
}

func FuzzRender(f *testing.F) {
	for _, s := range renderSeeds {
		f.Add(s, exampleDOM, "submit the order", uint16(50))
	}
	for _, dom := range fixtures(f) {
		f.Add(dom, "", "add to cart", uint16(120))
	}
	f.Fuzz(func(t *testing.T, dom, prev, query string, budget uint16) {
		p := pagemodel.Parse(dom)
		r := Render(p, Options{Query: query, Budget: int(budget), Previous: pagemodel.Parse(prev)})
		checkRendered(t, p, r, int(budget))
		for _, o := range Overlays(p) {
			if o.DismissID >= 0 && !p.HasElement(o.DismissID) {
				t.Fatalf("overlay %+v: dismiss id is no element", o)
			}
		}
		// The kept digest stands for the page it came from, whatever the page (within its bounds).
		pp := pagemodel.Parse(prev)
		if d := pp.Digest(); d != nil && len(pagemodel.ReadDigest(d).Texts) == len(pp.Texts()) {
			if byDigest := Render(p, Options{Query: query, Budget: int(budget), PreviousDigest: d}); byDigest.Text != r.Text {
				t.Errorf("rendered against the digest:\n%s\nagainst the page:\n%s", byDigest.Text, r.Text)
			}
		}
		for _, sig := range ErrorSignals(p, pp.Digest()) {
			if sig.Text == "" || utf8.RuneCountInString(sig.Text) > maxSignalText+1 {
				t.Errorf("error signal %+v: want a text of 1 to %d runes", sig, maxSignalText)
			}
		}
	})
}
