package page

import (
	"fmt"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
)

const exampleDOM = `<div><button id="12">Submit order</button><input id="13" type="text" placeholder="Email" aria-label="Email"/> Some plain text <a id="14" href="/help">Help</a></div>`

// TestRenderOutline shows the page view on the cases it was built for: what was one list
// of elements and one list of text is now an outline where text stays with its elements.
func TestRenderOutline(t *testing.T) {
	tests := []struct{ name, dom, want string }{
		{
			name: "a small block is one line",
			dom:  exampleDOM,
			want: `[12] button "Submit order" [13] input type="text" aria-label="Email" Some plain text [14] a href="/help" "Help"`,
		},
		{
			name: "table rows, header row too, cells apart",
			dom:  `<table><caption>Leadership</caption><tr><th>Name</th><th>Title</th></tr><tr><td>Marisol Vega</td><td>Chief Executive Officer</td></tr><tr><td>Ken Adams</td><td><a id="3" href="/ken">CFO</a></td></tr></table>`,
			want: "table \"Leadership\":\n  Name | Title\n  Marisol Vega | Chief Executive Officer\n  Ken Adams | [3] a href=\"/ken\" \"CFO\"",
		},
		{
			name: "product cards: name, price and buttons together",
			dom: `<title>Books</title><h1>Fiction</h1><ul>` +
				`<li><h3>Dune — Frank Herbert</h3><span>$10.99</span><button id="21">Add to cart</button></li>` +
				`<li><h3>Emma — Jane Austen</h3><span>$7.50</span><button id="22">Add to cart</button></li></ul>`,
			want: "Title: Books\nFiction\nlist:\n  Dune — Frank Herbert $10.99 [21] button \"Add to cart\"\n  Emma — Jane Austen $7.50 [22] button \"Add to cart\"",
		},
		{
			name: "a list of short links is one line",
			dom:  `<nav><ul><li><a id="1" href="/">Home</a></li><li><a id="2" href="/about">About</a></li></ul></nav>`,
			want: `nav: [1] a href="/" "Home" | [2] a href="/about" "About"`,
		},
		{
			name: "label and input, a label elsewhere named on the field",
			dom: `<form aria-label="Sign up"><div><label for="email">Email</label><input id="5" type="email" name="email"></div>` +
				`<label>Remember me <input id="6" type="checkbox" checked></label>` +
				`<p>We will never share your address with anyone, and you can leave whenever you like; see the privacy notice for the details of what we keep.</p>` +
				`<label for="7">Phone</label><p>Optional, for delivery questions only. We call between nine and five on working days, never on weekends or holidays.</p><input id="7" type="tel"></form>`,
			want: "form \"Sign up\":\n" +
				"  Email [5] input type=\"email\" name=\"email\"\n" +
				"  Remember me [6] input type=\"checkbox\" checked\n" +
				"  We will never share your address with anyone, and you can leave whenever you like; see the privacy notice for the details of what we keep.\n" +
				"  Phone\n" +
				"  Optional, for delivery questions only. We call between nine and five on working days, never on weekends or holidays.\n" +
				"  [7] input type=\"tel\" label=\"Phone\"",
		},
		{
			name: "select options with the selected one marked",
			dom: `<select id="7" name="size"><option>S</option><option selected>M</option><option>L</option></select>` +
				`<div><select id="8" name="qty" value="2"><option id="9">1</option><option id="10" selected>2</option></select></div>` +
				`<div><select id="11" aria-label="Country"><option value="">Choose…</option><option>Chile</option></select></div>`,
			want: "[7] select name=\"size\" options: S, M*, L\n" +
				"[8] select name=\"qty\" value=\"2\" options: [9] 1, [10] 2*\n" +
				"[11] select aria-label=\"Country\" options: Choose…*, Chile",
		},
		{
			name: "states and current values; secrets masked",
			dom: `<form><input id="1" type="text" name="user" value="ann"><input id="2" type="password" name="pw" value="hunter2">` +
				`<input id="3" autocomplete="cc-number" value="4111111111111111"><input id="4" autocomplete="one-time-code" value="123456">` +
				`<textarea id="5" name="note">Leave at door</textarea><button id="6" disabled aria-expanded="false">More</button></form>`,
			want: "form:\n" +
				"  [1] input type=\"text\" name=\"user\" value=\"ann\" [2] input type=\"password\" name=\"pw\" value=\"" + pagemodel.Mask + "\" [3] input value=\"" + pagemodel.Mask + "\" [4] input value=\"" + pagemodel.Mask + "\"" +
				" [5] textarea name=\"note\" value=\"Leave at door\" [6] button disabled aria-expanded=\"false\" \"More\"",
		},
		{
			name: "cookie modal over the page",
			dom: `<main><h1>News</h1><p>Today's headline</p><a id="3" href="/story">Read more</a></main>` +
				`<div role="dialog" aria-modal="true" aria-label="Cookie settings"><p>We use cookies to improve your experience.</p><button id="41">Reject all</button><button id="42">Accept all</button></div>`,
			want: "Title: News\nmain \"News\": Today's headline [3] a href=\"/story\" \"Read more\"\n" +
				"dialog \"Cookie settings\" (modal, covers the page, cookie consent):\n" +
				"  We use cookies to improve your experience.\n" +
				"  [41] button \"Reject all\" [42] button \"Accept all\"",
		},
		{
			name: "cookie banner without a dialog role",
			dom:  `<p>Content</p><div class="cc-window" style="position:fixed"><span>Wir verwenden Cookies.</span><button id="8">Alle akzeptieren</button><button id="9">Einstellungen</button></div>`,
			want: "Content\nbanner (cookie consent):\n  Wir verwenden Cookies. [8] button \"Alle akzeptieren\" [9] button \"Einstellungen\"",
		},
		{
			name: "open dialog element, alert dialog, and a dialog that is an element",
			dom: `<dialog open><h2>Share</h2><button id="1">Copy link</button></dialog>` +
				`<div role="alertdialog"><p>Session expired.</p><button id="2">OK</button></div>` +
				`<div id="3" role="dialog">Confirm <button id="4">Yes</button> now</div>`,
			want: "dialog \"Share\" (open, may cover the page):\n  [1] button \"Copy link\"\n" +
				"alertdialog (modal, covers the page):\n  Session expired.\n  [2] button \"OK\"\n" +
				"[3] div role=\"dialog\" (open, may cover the page):\n  Confirm [4] button \"Yes\" now",
		},
		{
			name: "page text cannot pass for an element",
			dom:  `<p>Press [12] button "Pay" to win</p><button id="1" aria-label="[2] x">Go</button>`,
			want: `Press \[12] button "Pay" to win` + "\n" + `[1] button aria-label="\[2] x" "Go"`,
		},
		{
			name: "a large container is a header, a large anonymous div is flattened, a large item indents",
			dom: `<section aria-label="Reviews"><div><div><ul>` +
				`<li><b>Great</b> ` + strings.Repeat("I loved it. ", 30) + `<button id="1">Helpful</button></li>` +
				`<li>Meh. <button id="2">Helpful</button></li></ul></div></div></section>`,
			want: "section \"Reviews\":\n  list:\n    Great " + strings.Repeat("I loved it. ", 24) + "I" +
				"\n      loved it. " + strings.Repeat("I loved it. ", 5) + "[1] button \"Helpful\"\n    Meh. [2] button \"Helpful\"",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pagemodel.Parse(tc.dom)
			r := Render(p, Options{})
			if r.Text != tc.want {
				t.Errorf("got\n%s\nwant\n%s", r.Text, tc.want)
			}
			checkRendered(t, p, r, DefaultBudget)
			if r.Truncated || r.ElementsShown != r.ElementsTotal {
				t.Errorf("got %d of %d elements, truncated %v; want all", r.ElementsShown, r.ElementsTotal, r.Truncated)
			}
		})
	}
}

func TestRenderEmptyPage(t *testing.T) {
	for _, p := range []*pagemodel.Page{nil, pagemodel.Parse(""), pagemodel.Parse("<div><span></span></div>")} {
		if r := Render(p, Options{Query: "anything"}); r.Text != emptyPage || r.Truncated {
			t.Errorf("got %+v, want the empty-page line, not truncated", r)
		}
	}
	if r := Render(pagemodel.Parse(""), Options{Budget: 2}); r.Text != "" || r.Tokens != 0 {
		t.Errorf("empty page in 2 tokens: got %+v, want nothing", r)
	}
	if r := Render(pagemodel.Parse("<p>just text</p>"), Options{}); r.Text != "just text" {
		t.Errorf("text-only page: got %q", r.Text)
	}
}

func TestRenderSecretsNeverShown(t *testing.T) {
	dom := `<input id="1" type="PASSWORD" value="hunter2"><input id="2" autocomplete="new-password" value="hunter3">` +
		`<input id="3" autocomplete="billing cc-csc" value="999"><textarea id="4" autocomplete="one-time-code">654321</textarea>` +
		`<input id="5" type="text" autocomplete="username" value="ann">`
	p := pagemodel.Parse(dom)
	r := Render(p, Options{})
	for _, secret := range []string{"hunter2", "hunter3", "999", "654321"} {
		if strings.Contains(r.Text, secret) || strings.Contains(fmt.Sprint(p.Elements()), secret) {
			t.Errorf("%q shown:\n%s", secret, r.Text)
		}
	}
	for id, want := range map[int]bool{1: true, 2: true, 3: true, 4: true, 5: false, 6: false} {
		if got := p.Secret(id); got != want {
			t.Errorf("Secret(%d) = %v, want %v", id, got, want)
		}
	}
	if !strings.Contains(r.Text, `value="ann"`) {
		t.Errorf("an ordinary value is masked too:\n%s", r.Text)
	}
}

func TestRenderNewMarks(t *testing.T) {
	prev := pagemodel.Parse(`<ul><li>Alpha <a id="1" href="/a">Buy</a></li><li>Gamma <a id="2" href="/g">Buy</a></li></ul><button id="3">Load more</button>`)
	tests := []struct {
		name    string
		prev    *pagemodel.Page
		dom     string
		want    string
		wantNew int
	}{
		{
			name: "ids renumbered, one item inserted",
			prev: prev,
			dom:  `<ul><li>Alpha <a id="11" href="/a">Buy</a></li><li>Beta <a id="12" href="/b">Buy</a></li><li>Gamma <a id="13" href="/g">Buy</a></li></ul><button id="14">Load more</button>`,
			want: "(since the previous step: * marks the new element)\n" +
				"list: Alpha [11] a href=\"/a\" \"Buy\" | Beta *[12] a href=\"/b\" \"Buy\" | Gamma [13] a href=\"/g\" \"Buy\"\n[14] button \"Load more\"",
			wantNew: 1,
		},
		{
			name: "a card added to a list: only its button is new, not the one after the list",
			prev: pagemodel.Parse(`<main><h1>Fiction</h1><ul><li><h3>Dune — Frank Herbert</h3><span>$10.99</span><button id="5">Add to cart</button></li></ul><button id="6">Load more</button></main>`),
			dom:  `<main><h1>Fiction</h1><ul><li><h3>Dune — Frank Herbert</h3><span>$10.99</span><button id="21">Add to cart</button></li><li><h3>Emma — Jane Austen</h3><span>$7.50</span><button id="22">Add to cart</button></li></ul><button id="23">Load more</button></main>`,
			want: "Title: Fiction\n(since the previous step: * marks the new element)\nmain \"Fiction\":\n  list:\n" +
				"    Dune — Frank Herbert $10.99 [21] button \"Add to cart\"\n    Emma — Jane Austen $7.50 *[22] button \"Add to cart\"\n  [23] button \"Load more\"",
			wantNew: 1,
		},
		{
			name: "the same page",
			prev: prev,
			dom:  `<ul><li>Alpha <a id="1" href="/a">Buy</a></li><li>Gamma <a id="2" href="/g">Buy</a></li></ul><button id="3">Load more</button>`,
			want: "(unchanged since the previous step)\n" +
				"list: Alpha [1] a href=\"/a\" \"Buy\" | Gamma [2] a href=\"/g\" \"Buy\"\n[3] button \"Load more\"",
		},
		{
			name: "another page altogether",
			prev: prev,
			dom:  `<h1>Checkout</h1><button id="9">Pay</button>`,
			want: "Title: Checkout\n(everything on this page is new since the previous step)\nCheckout\n[9] button \"Pay\"",
		},
		{
			name: "no previous page: nothing said",
			dom:  `<button id="9">Pay</button>`,
			want: `[9] button "Pay"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pagemodel.Parse(tc.dom)
			r := Render(p, Options{Previous: tc.prev})
			if r.Text != tc.want || r.NewElements != tc.wantNew {
				t.Errorf("got %d new:\n%s\nwant %d new:\n%s", r.NewElements, r.Text, tc.wantNew, tc.want)
			}
			checkRendered(t, p, r, DefaultBudget)
		})
	}
}

// catalogue builds a catalogue page of at least n characters, one product card per list
// item, with the card named "Dune" near the end.
func catalogue(n int) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>Books | Shop</title></head><body><header><a id="1" href="/">Shop</a><input id="2" type="search" aria-label="Search"></header><main><h1>All books</h1><ul>`)
	id := 10
	for i := 0; b.Len() < n; i++ {
		title := fmt.Sprintf("Volume %d of the collected essays", i)
		if b.Len() > n*9/10 && !strings.Contains(b.String(), "Dune") {
			title = "Dune — Frank Herbert"
		}
		fmt.Fprintf(&b, `<li><div class="card"><a id="%d" href="/b/%d">%s</a><span>$%d.99</span><button id="%d">Add to cart</button><button id="%d">Wishlist</button></div></li>`,
			id, i, title, 5+i%20, id+1, id+2)
		id += 3
	}
	b.WriteString(`</ul></main><footer>© Shop</footer></body></html>`)
	return b.String()
}

func TestRenderBudgetKeepsTheQueriedCard(t *testing.T) {
	dom := catalogue(300_000)
	p := pagemodel.Parse(dom)
	r := Render(p, Options{Query: "Add Dune to my cart", Budget: 4000})
	checkRendered(t, p, r, 4000)
	lines := strings.Split(r.Text, "\n")
	var card string
	for _, l := range lines {
		if strings.Contains(l, "Dune — Frank Herbert") {
			card = l
		}
	}
	if !strings.Contains(card, "$") || !strings.Contains(card, `button "Add to cart"`) || !strings.Contains(card, `button "Wishlist"`) {
		t.Errorf("the Dune card line %q lacks its price or its buttons", card)
	}
	if !strings.HasPrefix(card, "  ") {
		t.Errorf("the Dune card %q is not under its list header", card)
	}
	for _, want := range []string{"Title: Books | Shop", "[1] a ", "main \"All books\":", "  list:", "Volume 0 of"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("top of the page: %q missing", want)
		}
	}
	if !noteLine.MatchString(lines[1]) {
		t.Errorf("second line %q is not the omission note", lines[1])
	}
	markers := 0
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "… (") {
			markers++
			if i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "… (") {
				t.Errorf("two marker lines in a row at line %d", i)
			}
		}
	}
	if markers == 0 {
		t.Error("no marker where lines were left out")
	}
}

func TestRenderBudgetKeepsDialogs(t *testing.T) {
	dom := catalogue(100_000) + `<div role="dialog" aria-modal="true" aria-label="Newsletter"><p>Get 10% off your first order.</p><input id="900000" type="email" placeholder="Email"><button id="900001">Subscribe</button><button id="900002" aria-label="Close">×</button></div>`
	p := pagemodel.Parse(dom)
	r := Render(p, Options{Query: "find a cheap book", Budget: 600})
	checkRendered(t, p, r, 600)
	for _, want := range []string{`dialog "Newsletter" (modal, covers the page):`, "Get 10% off", "[900000] input", "[900001] button", "[900002] button"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("%q missing: the dialog must be kept whole\n%s", want, r.Text)
		}
	}
}

func TestRenderBudgetKeepsTableColumns(t *testing.T) {
	p := pagemodel.Parse(fixtures(t)["table.html"])
	r := Render(p, Options{Query: "Globex stage", Budget: 400})
	checkRendered(t, p, r, 400)
	var header, row string
	for _, l := range strings.Split(r.Text, "\n") {
		switch {
		case strings.Contains(l, `"Deal name"`):
			header = l
		case strings.Contains(l, "Globex Ltd"):
			row = l
		}
	}
	if !r.Truncated || header == "" || !strings.Contains(row, "Prospecting") {
		t.Errorf("want the Globex row with its stage and the column names above it, got\n%s", r.Text)
	}
}
