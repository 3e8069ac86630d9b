package pagemodel

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseExample(t *testing.T) {
	p := Parse(`<div><button id="12">Submit order</button><input id="13" type="text" placeholder="Email" aria-label="Email"/> Some plain text <a id="14" href="/help">Help</a></div>`)
	want := []Element{
		{ID: 12, Tag: "button", Text: "Submit order"},
		{ID: 13, Tag: "input", Attrs: []Attr{{"type", "text"}, {"aria-label", "Email"}, {"placeholder", "Email"}}},
		{ID: 14, Tag: "a", Attrs: []Attr{{"href", "/help"}}, Text: "Help"},
	}
	if got := p.Elements(); !reflect.DeepEqual(got, want) {
		t.Errorf("elements:\ngot  %+v\nwant %+v", got, want)
	}
	if got, want := p.Texts(), []string{"Some plain text"}; !reflect.DeepEqual(got, want) {
		t.Errorf("texts: got %q, want %q", got, want)
	}
	for id, want := range map[int]bool{12: true, 13: true, 14: true, 11: false, 0: false, -1: false} {
		if got := p.HasElement(id); got != want {
			t.Errorf("HasElement(%d): got %v, want %v", id, got, want)
		}
	}
	if e, ok := p.Element(13); !ok || e.Tag != "input" {
		t.Errorf("Element(13): got %+v, %v, want the input", e, ok)
	}
}

func TestParseMarkup(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name  string
		dom   string
		elems []Element // nil: none
		texts []string  // nil: none
	}{
		{
			name:  "unquoted, single-quoted and upper-case attributes",
			dom:   `<A ID=5 HREF=/x>Link</A><button id='6' Type='submit'>Go</button>`,
			elems: []Element{{ID: 5, Tag: "a", Attrs: []Attr{{"href", "/x"}}, Text: "Link"}, {ID: 6, Tag: "button", Attrs: []Attr{{"type", "submit"}}, Text: "Go"}},
		},
		{
			name:  "unquoted self-closing id",
			dom:   `<input id=8/>after`,
			elems: []Element{{ID: 8, Tag: "input"}},
			texts: []string{"after"},
		},
		{
			name:  "unclosed elements",
			dom:   `<div><button id="1">Go<div>more`,
			elems: []Element{{ID: 1, Tag: "button", Text: "Go more"}},
		},
		{
			name:  "stray end tags",
			dom:   `</span></div>before<button id="2">B</p></button>after</i>`,
			elems: []Element{{ID: 2, Tag: "button", Text: "B"}},
			texts: []string{"before", "after"},
		},
		{
			name:  "unterminated quote drops the rest, as browsers do",
			dom:   `text <a id="9>never closed`,
			texts: []string{"text"},
		},
		{
			name:  "tag cut off at the end",
			dom:   `text <button id="10"`,
			texts: []string{"text"},
		},
		{
			name:  "lone angle brackets are text",
			dom:   `a < b > c << 1 <3 </ x`,
			texts: []string{"a < b > c << 1 <3"},
		},
		{
			name:  "comments, doctype and processing instructions",
			dom:   `<!DOCTYPE html><?xml version="1.0"?><!-- <button id="11">no</button> -->yes<!-- unterminated <button id="12">`,
			texts: []string{"yes"},
		},
		{
			name:  "script and style are not page text",
			dom:   `<script>var b = "<button id=12>x</button>";</script><STYLE>.a{}</style>shown<script/>also`,
			texts: []string{"shown also"},
		},
		{
			name:  "entities are decoded",
			dom:   `<button id="13" aria-label="Tom &amp; Jerry">5 &lt; 6 &eacute;&#233;&#x41;</button>&nbsp;&copy; 2024`,
			elems: []Element{{ID: 13, Tag: "button", Attrs: []Attr{{"aria-label", "Tom & Jerry"}}, Text: "5 < 6 ééA"}},
			texts: []string{"© 2024"},
		},
		{
			name:  "ids that are not small numbers make no elements",
			dom:   `<div id="main"><button id="abc">x</button><a id="-3">y</a><a id="1234567890">z</a><a id="">w</a></div>`,
			texts: []string{"x y z w"},
		},
		{
			name:  "nested elements own their own text",
			dom:   `<div id="1" role="dialog">Confirm <button id="2">Yes</button> now</div>`,
			elems: []Element{{ID: 1, Tag: "div", Attrs: []Attr{{"role", "dialog"}}, Text: "Confirm now"}, {ID: 2, Tag: "button", Text: "Yes"}},
		},
		{
			name:  "labels of elements without ids are text",
			dom:   `<span aria-label="4.5 out of 5 stars"></span><a id="3"><img alt="Home"/></a>`,
			elems: []Element{{ID: 3, Tag: "a", Text: "Home"}},
			texts: []string{"4.5 out of 5 stars"},
		},
		{
			name:  "block tags split text, cells and options stay on one line",
			dom:   `<p>one</p><p>two<br>three</p><table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table><select id="4"><option>x</option><option>y</option></select>`,
			elems: []Element{{ID: 4, Tag: "select", Text: "x | y"}},
			texts: []string{"one", "two", "three", "a | b", "c"},
		},
		{
			name:  "whitespace collapsed, invisible characters dropped",
			dom:   "<button id=\"5\">\n\t Pay\u200b \u202enow\x00 </button>  spaced\r\n  out  ",
			elems: []Element{{ID: 5, Tag: "button", Text: "Pay now"}},
			texts: []string{"spaced out"},
		},
		{
			name:  "self-closing textarea as the templatizer writes it",
			dom:   `<textarea id="24" name="comment"/><button id="25">Post</button>`,
			elems: []Element{{ID: 24, Tag: "textarea", Attrs: []Attr{{"name", "comment"}}}, {ID: 25, Tag: "button", Text: "Post"}},
		},
		{
			name:  "textarea content is text, not markup",
			dom:   `<textarea id="5">hello <b>world</b></textarea>after`,
			elems: []Element{{ID: 5, Tag: "textarea", Text: "hello <b>world</b>"}},
			texts: []string{"after"},
		},
		{
			name:  "boolean attributes, duplicates and unknown attributes",
			dom:   `<input id="7" type="checkbox" checked disabled="disabled" type="radio" class="x" onclick="evil()" data-name="agree"/>`,
			elems: []Element{{ID: 7, Tag: "input", Attrs: []Attr{{"type", "checkbox"}, {"data-name", "agree"}, {"checked", ""}, {"disabled", ""}}}},
		},
		{
			name:  "long text is cut",
			dom:   `<a id="1">` + long + `</a>`,
			elems: []Element{{ID: 1, Tag: "a", Text: strings.TrimSpace(long[:maxElementText]) + "…"}},
		},
		{
			name:  "title and first heading",
			dom:   `<title>Shop &amp; Co</title><h1>Cart</h1>`,
			texts: []string{"Shop & Co", "Cart"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Parse(tc.dom)
			if got := p.Elements(); !reflect.DeepEqual(got, tc.elems) {
				t.Errorf("elements:\ngot  %+v\nwant %+v", got, tc.elems)
			}
			if got := p.Texts(); !reflect.DeepEqual(got, tc.texts) {
				t.Errorf("texts: got %q, want %q", got, tc.texts)
			}
		})
	}
}

func TestParseDuplicateIDs(t *testing.T) {
	p := Parse(`<button id="3">first</button><button id="3">second</button>`)
	if got := len(p.Elements()); got != 2 {
		t.Errorf("got %d elements, want 2", got)
	}
	if e, ok := p.Element(3); !ok || e.Text != "first" {
		t.Errorf("Element(3): got %+v, want the first", e)
	}
}

func TestParseTitle(t *testing.T) {
	tests := []struct{ dom, want string }{
		{`<title> Inbox  (3) </title><h1>Mail</h1>`, "Inbox (3)"},
		{`<h1>Order <b>#42</b></h1><h1>Other</h1>`, "Order #42"},
		{`<p>no heading</p>`, ""},
	}
	for _, tc := range tests {
		if got := Parse(tc.dom).Title(); got != tc.want {
			t.Errorf("Title of %q: got %q, want %q", tc.dom, got, tc.want)
		}
	}
}

func TestParseInvalidUTF8(t *testing.T) {
	p := Parse("<button id=\"1\">ok\xff\xfe</button>te\xc3xt")
	for _, e := range p.Elements() {
		if !utf8.ValidString(e.Text) {
			t.Errorf("element text %q is not valid UTF-8", e.Text)
		}
	}
	for _, s := range p.Texts() {
		if !utf8.ValidString(s) {
			t.Errorf("text %q is not valid UTF-8", s)
		}
	}
	if !p.HasElement(1) {
		t.Error("element 1 lost")
	}
}

func TestParseTemplatized(t *testing.T) {
	dom := "T1: <div><a id=$1/><div><div>$2<span aria-label=$3/></div><div><button aria-label=$4 type=\"button\" id=$5/></div></div></div>\n" +
		"T2: <li><a id=$1>$2</a></li>\n\n" +
		`<html><body>{T1(1242,"Lopez Island $350 per night","5.0 out of 5","Add to wishlist: Lopez Island",1272)}` +
		`{T1(1366,"Brinnon \"Beach\" \u00e9","4.97 out of 5","Add to wishlist: Brinnon",1396)}` +
		`<ul>{T2(7,"Help")}</ul>{T9(1)} {T1(broken</body></html>`
	p := Parse(dom)
	var ids []int
	for _, e := range p.Elements() {
		ids = append(ids, e.ID)
	}
	if want := []int{1242, 1272, 1366, 1396, 7}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids: got %v, want %v", ids, want)
	}
	if e, _ := p.Element(1396); !reflect.DeepEqual(e.Attrs, []Attr{{"type", "button"}, {"aria-label", "Add to wishlist: Brinnon"}}) {
		t.Errorf("button 1396 attrs: got %+v", e.Attrs)
	}
	if e, _ := p.Element(7); e.Text != "Help" {
		t.Errorf("link 7 text: got %q, want Help", e.Text)
	}
	want := []string{"Lopez Island $350 per night 5.0 out of 5", `Brinnon "Beach" é 4.97 out of 5`, "{T9(1)} {T1(broken"}
	if got := p.Texts(); !reflect.DeepEqual(got, want) {
		t.Errorf("texts:\ngot  %q\nwant %q", got, want)
	}
}

func TestExpandTemplatesLeavesOtherInputAlone(t *testing.T) {
	for _, dom := range []string{
		"T1: looks like a header\n\nbut nothing calls it",
		"T1: <b>$1</b>",
		"<p>{T1(1)}</p>",
	} {
		if got := expandTemplates(dom); got != dom {
			t.Errorf("expandTemplates(%q) = %q, want it unchanged", dom, got)
		}
	}
}

func TestExpandTemplatesIsBounded(t *testing.T) {
	dom := "T1: " + strings.Repeat("<b>$1</b>", 10_000) + "\n\n" + strings.Repeat(`{T1("xxxxxxxxxx")}`, 20_000)
	if got := len(expandTemplates(dom)); got > maxExpanded+len(dom)+1<<16 {
		t.Errorf("expanded to %d bytes, want at most about %d", got, maxExpanded+len(dom))
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		dom  string
		want Kind
	}{
		{`<button id="1">x</button>`, KindButton},
		{`<input id="1" type="submit"/>`, KindButton},
		{`<div id="1" role="button">x</div>`, KindButton},
		{`<a id="1" href="/">x</a>`, KindLink},
		{`<span id="1" role="link">x</span>`, KindLink},
		{`<input id="1"/>`, KindInput},
		{`<input id="1" type="checkbox"/>`, KindInput},
		{`<textarea id="1"></textarea>`, KindInput},
		{`<select id="1"></select>`, KindInput},
		{`<div id="1" role="combobox"></div>`, KindInput},
		{`<input id="1" type="hidden"/>`, KindOther},
		{`<div id="1">x</div>`, KindOther},
	}
	for _, tc := range tests {
		if got := Parse(tc.dom).Elements()[0].Kind(); got != tc.want {
			t.Errorf("Kind of %s: got %v, want %v", tc.dom, got, tc.want)
		}
	}
}
