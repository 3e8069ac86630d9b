package page

import (
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tokens"
)

var (
	noteLine = regexp.MustCompile(`^\[(\d[\d,]* of \d[\d,]* elements( and (all|<1%|\d+%) of the text)?|(all|<1%|\d+%) of the text|\d[\d,]* lines?) omitted to fit the budget\]$`)
	elemRef  = regexp.MustCompile(`\[(\d+)\]`)
)

// checkRendered asserts what holds for every rendering: within budget, valid text, the
// note present exactly when something was cut, and every element shown once, in
// document order.
func checkRendered(t *testing.T, p *pagemodel.Page, r Rendered, budget int) {
	t.Helper()
	if budget <= 0 {
		budget = DefaultBudget
	}
	if r.Tokens > budget {
		t.Errorf("tokens %d over budget %d", r.Tokens, budget)
	}
	if got := tokens.Estimate(r.Text); got != r.Tokens {
		t.Errorf("Tokens is %d, but the text estimates at %d", r.Tokens, got)
	}
	if !utf8.ValidString(r.Text) {
		t.Errorf("text is not valid UTF-8")
	}
	if r.ElementsTotal != len(p.Elements()) || r.ElementsShown > r.ElementsTotal {
		t.Errorf("shown %d of %d elements, page has %d", r.ElementsShown, r.ElementsTotal, len(p.Elements()))
	}
	lines := strings.Split(r.Text, "\n")
	hasNote := false
	for _, l := range lines[:min(3, len(lines))] {
		hasNote = hasNote || noteLine.MatchString(l)
	}
	if r.Text != "" && hasNote != r.Truncated {
		t.Errorf("note present %v, truncated %v:\n%s", hasNote, r.Truncated, r.Text)
	}
	if !r.Truncated && r.TextOmittedChars != 0 {
		t.Errorf("not truncated, but %d chars of text omitted", r.TextOmittedChars)
	}
	positions := map[int][]int{} // id → indexes of its elements (ids may repeat)
	for i, e := range p.Elements() {
		positions[e.ID] = append(positions[e.ID], i)
	}
	last, shown := -1, 0
	for _, l := range lines {
		for _, m := range elemRef.FindAllStringSubmatchIndex(l, -1) {
			if m[0] > 0 && l[m[0]-1] == '\\' {
				continue // page text, escaped
			}
			id, _ := strconv.Atoi(l[m[2]:m[3]])
			for len(positions[id]) > 0 && positions[id][0] < last {
				positions[id] = positions[id][1:]
			}
			if len(positions[id]) == 0 {
				t.Errorf("line %q: [%d] is no element of the page, or out of document order", l, id)
				continue
			}
			last = positions[id][0]
			positions[id] = positions[id][1:]
			shown++
		}
	}
	if shown != r.ElementsShown {
		t.Errorf("%d elements on the lines, ElementsShown %d:\n%s", shown, r.ElementsShown, r.Text)
	}
}

func TestRenderWithinBudget(t *testing.T) {
	queries := []string{"", "sign in with my email", "add the Dell laptop to the cart", "ワイヤレスイヤホン"}
	for name, dom := range fixtures(t) {
		p := pagemodel.Parse(dom)
		for _, budget := range []int{1, 20, 60, 150, 400, 1000, 0} {
			for _, q := range queries {
				t.Run(fmt.Sprintf("%s/%d/%s", name, budget, q), func(t *testing.T) {
					checkRendered(t, p, Render(p, Options{Query: q, Budget: budget}), budget)
				})
			}
		}
	}
}

func TestRenderFixturesFitWhole(t *testing.T) {
	for name, dom := range fixtures(t) {
		p := pagemodel.Parse(dom)
		r := Render(p, Options{Query: "", Budget: DefaultBudget})
		if r.Truncated || r.ElementsShown != len(p.Elements()) || r.TextOmittedChars != 0 {
			t.Errorf("%s: got %+v, want everything shown", name, r)
		}
		if strings.Contains(r.Text, "omitted") {
			t.Errorf("%s: omission note on a page that fits", name)
		}
	}
}

func TestRenderKeepsQueryRelated(t *testing.T) {
	p := pagemodel.Parse(fixtures(t)["products.html"])
	r := Render(p, Options{Query: "Compare the Dell Inspiron", Budget: 300})
	checkRendered(t, p, r, 300)
	if !r.Truncated {
		t.Fatalf("want the page cut at 300 tokens, got %+v", r)
	}
	for _, want := range []string{"[101] ", "[142] ", "[144] "} { // the top of the page, and the Dell link and its Compare button
		if !strings.Contains(r.Text, want) {
			t.Errorf("%q missing from\n%s", want, r.Text)
		}
	}
	if unrelated := "[139] "; strings.Contains(r.Text, unrelated) {
		t.Errorf("%q (the MacBook) kept over related elements:\n%s", unrelated, r.Text)
	}
}

func TestRenderTextKeepsQueryRelated(t *testing.T) {
	p := pagemodel.Parse(fixtures(t)["article.html"])
	r := Render(p, Options{Query: "Ahmedabad heat action plan", Budget: 700})
	checkRendered(t, p, r, 700)
	if r.TextOmittedChars == 0 {
		t.Fatalf("want text cut at 700 tokens, got %+v", r)
	}
	for _, want := range []string{"How cities are redesigning streets", "In Ahmedabad, India"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("%q missing from\n%s", want, r.Text)
		}
	}
}

// bigDOM builds a catalog page of exactly n bytes (ASCII, so n characters) with a unique
// "Download invoice" button near the end.
func bigDOM(n int) string {
	const needle = `<div><button id="999999" type="button">Download invoice INV-2024-0077</button></div>`
	const tail = `</body></html>`
	var b strings.Builder
	b.WriteString(`<html><head><title>Catalog</title></head><body><h1>All products</h1>`)
	for i := 0; b.Len() < n-len(needle)-len(tail)-400; i++ {
		fmt.Fprintf(&b, `<div role="listitem"><a id="%d" href="/p/%d">Product %d, stainless steel water bottle, 750 ml</a><span aria-label="%d.%d out of 5 stars"></span><span>$%d.99</span><p>Keeps drinks cold for 24 hours and hot for 12. Dishwasher-safe lid, lifetime warranty.</p><button id="%d" type="button">Add to cart</button></div>`,
			2*i+1, i, i, 3+i%2, i%10, 10+i%90, 2*i+2)
	}
	b.WriteString(needle)
	b.WriteString(strings.Repeat(" ", n-b.Len()-len(tail)))
	b.WriteString(tail)
	return b.String()
}

func TestRenderBigDOM(t *testing.T) {
	dom := bigDOM(500_000)
	if len(dom) != 500_000 {
		t.Fatalf("fixture is %d characters, want 500,000", len(dom))
	}
	p := pagemodel.Parse(dom)
	r := Render(p, Options{Query: "download the invoice", Budget: DefaultBudget})
	checkRendered(t, p, r, DefaultBudget)
	if !r.Truncated || r.TextOmittedChars == 0 || r.ElementsShown == 0 {
		t.Fatalf("want a cut page with elements and some text left out, got %+v", Rendered{Tokens: r.Tokens, ElementsShown: r.ElementsShown, ElementsTotal: r.ElementsTotal, TextOmittedChars: r.TextOmittedChars, Truncated: r.Truncated})
	}
	for _, want := range []string{"Title: Catalog\n", "\nAll products\n[1] a ", "\n[999999] button "} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("%q missing", want)
		}
	}
	if r.Tokens < DefaultBudget*9/10 {
		t.Errorf("used %d tokens of %d, want the budget mostly used", r.Tokens, DefaultBudget)
	}
	exact := exactTokens(t, o200k(t), r.Text)
	t.Logf("500,000-char DOM: %d of %d elements shown, %d chars of text left out, estimate %d, o200k %d",
		r.ElementsShown, r.ElementsTotal, r.TextOmittedChars, r.Tokens, exact)
	if ratio := float64(r.Tokens) / float64(exact); ratio < 0.9 || ratio > 1.1 {
		t.Errorf("estimate %d vs o200k %d: ratio %.3f, want within ±10%%", r.Tokens, exact, ratio)
	}
}

func TestRenderBudgetIsConfigurable(t *testing.T) {
	p := pagemodel.Parse(bigDOM(100_000))
	if a, b := Render(p, Options{Query: "", Budget: 0}), Render(p, Options{Query: "", Budget: DefaultBudget}); a != b {
		t.Error("budget 0 does not mean the default")
	}
	small := Render(p, Options{Query: "", Budget: 2000})
	checkRendered(t, p, small, 2000)
	if big := Render(p, Options{Query: "", Budget: 20000}); big.Tokens <= small.Tokens || big.ElementsShown <= small.ElementsShown {
		t.Errorf("budget 20000 shows %d elements in %d tokens, budget 2000 shows %d in %d", big.ElementsShown, big.Tokens, small.ElementsShown, small.Tokens)
	}
}

func TestRenderLongTextRun(t *testing.T) {
	run := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 2000)
	p := pagemodel.Parse(`<button id="1">OK</button><p>` + run + `</p>`)
	r := Render(p, Options{Query: "", Budget: 500})
	checkRendered(t, p, r, 500)
	if !strings.Contains(r.Text, "[1] button") || !strings.Contains(r.Text, "Lorem ipsum") {
		t.Errorf("want the button and the start of the text, got\n%s", r.Text)
	}
}

func TestOmissionNote(t *testing.T) {
	tests := []struct {
		shown, total, omitted, chars int
		want                         string
	}{
		{791, 1203, 800, 1000, "[412 of 1,203 elements and 80% of the text omitted to fit the budget]"},
		{0, 5, 0, 0, "[5 of 5 elements omitted to fit the budget]"},
		{2, 2, 1, 1000, "[<1% of the text omitted to fit the budget]"},
		{2, 2, 999, 1000, "[99% of the text omitted to fit the budget]"},
		{2, 2, 1000, 1000, "[all of the text omitted to fit the budget]"},
		{3, 3, 0, 100, "[1 line omitted to fit the budget]"},
	}
	for _, tc := range tests {
		if got := omissionNote(tc.shown, tc.total, tc.omitted, tc.chars, 1); got != tc.want {
			t.Errorf("omissionNote(%d, %d, %d, %d): got %q, want %q", tc.shown, tc.total, tc.omitted, tc.chars, got, tc.want)
		}
	}
}

func TestFormatElement(t *testing.T) {
	tests := []struct{ dom, want string }{
		{`<button id="1" type="button" aria-label="Close">Close</button>`, `[1] button "Close"`},
		{`<button id="1" type="submit" title="Send">Send</button>`, `[1] button type="submit" "Send"`},
		{`<input id="2" type="text" aria-label="Name" placeholder="Your name" value=""/>`, `[2] input type="text" aria-label="Name" placeholder="Your name"`},
		{`<input id="3" type="checkbox" checked aria-checked="true"/>`, `[3] input type="checkbox" checked aria-checked="true"`},
		{`<a id="4" href="javascript:void(0)">Say "hi" \o/</a>`, `[4] a "Say \"hi\" \\o/"`},
		{`<a id="5" href="/` + strings.Repeat("x", 200) + `">x</a>`, `[5] a href="/` + strings.Repeat("x", maxHref-2) + `…" "x"`},
	}
	for _, tc := range tests {
		if got := formatElement(pagemodel.Parse(tc.dom).Elements()[0], true); got != tc.want {
			t.Errorf("formatElement(%s):\ngot  %s\nwant %s", tc.dom, got, tc.want)
		}
	}
}

func TestQueryMatch(t *testing.T) {
	tests := []struct {
		query, text string
		want        int
	}{
		{"Add the Dell laptops to my cart", "Dell Inspiron 15 Laptop", 2},
		{"checked items", "Check item", 2},
		{"CART", "Add to cart", 1},
		{"the to of", "the to of", 0},
		{"ワイヤレスイヤホンを買う", "完全ワイヤレスイヤホン", 8},
		{"", "anything", 0},
	}
	for _, tc := range tests {
		if got := bits.OnesCount64(newQuery(tc.query).match(tc.text)); got != tc.want {
			t.Errorf("query %q on %q: got %d terms, want %d", tc.query, tc.text, got, tc.want)
		}
	}
}

func BenchmarkEstimateTokens500K(b *testing.B) {
	dom := bigDOM(500_000)
	b.SetBytes(int64(len(dom)))
	for b.Loop() {
		tokens.Estimate(dom)
	}
}

func TestDigestStandsForThePreviousPage(t *testing.T) {
	prev := pagemodel.Parse(`<ul><li><a id="1" href="/a">Alpha</a></li><li><a id="2" href="/b">Beta</a></li></ul>`)
	cur := pagemodel.Parse(`<ul><li><a id="7" href="/a">Alpha</a></li><li><a id="8" href="/b">Beta</a></li><li><a id="9" href="/c">Gamma</a></li></ul>`)
	byPage := Render(cur, Options{Previous: prev})
	byDigest := Render(cur, Options{PreviousDigest: prev.Digest()})
	if byDigest.Text != byPage.Text || byDigest.NewElements != 1 {
		t.Errorf("rendered with the digest:\n%s\n(%d new), want the same as with the page:\n%s", byDigest.Text, byDigest.NewElements, byPage.Text)
	}
}
