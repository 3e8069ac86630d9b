package page

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
)

func TestSummary(t *testing.T) {
	tests := []struct{ dom, want string }{
		{`<title>Checkout</title><button id="1">Pay</button><input id="2"/>`, "Checkout — 2 elements (1 button, 1 input), 65 chars"},
		{`<h1>Cart</h1><a id="1">a</a><a id="2">b</a>`, "Cart — 2 elements (2 links), 43 chars"},
		{`<p>Hello</p>`, "Hello — 0 elements, 12 chars"},
		{`<button id="7">Only a button</button>`, "Only a button — 1 element (1 button), 37 chars"},
		{"", "0 elements, 0 chars"},
	}
	for _, tc := range tests {
		if got := Summary(pagemodel.Parse(tc.dom)); got != tc.want {
			t.Errorf("Summary(Parse(%q)):\ngot  %q\nwant %q", tc.dom, got, tc.want)
		}
	}
}

func TestSummaryLimits(t *testing.T) {
	doms := map[string]string{
		"emoji title":   "<title>" + strings.Repeat("😀", 300) + "</title>",
		"long title":    "<title>" + strings.Repeat("Very long title ", 50) + "</title>" + strings.Repeat(`<button id="1">x</button>`, 5000),
		"invalid utf-8": "<title>caf\xc3</title>\xff\xfe",
		"newlines":      "<title>a\nb\r\nc\td</title>",
		"big":           bigDOM(500_000),
		"combining":     "<title>" + strings.Repeat("e\u0301", 400) + "</title>",
	}
	for name, dom := range fixtures(t) {
		doms[name] = dom
	}
	for name, dom := range doms {
		t.Run(name, func(t *testing.T) {
			s := Summary(pagemodel.Parse(dom))
			checkSummary(t, s)
			t.Logf("%s", s)
		})
	}
}

func checkSummary(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("summary %q is not valid UTF-8", s)
	}
	if n := utf16Len(s); n > maxSummary {
		t.Errorf("summary is %d UTF-16 units, want at most %d: %q", n, maxSummary, s)
	}
	if strings.ContainsAny(s, "\n\r\t") {
		t.Errorf("summary %q has control characters", s)
	}
}

func TestSizeOf(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 3100: "3.1k", 9999: "10.0k", 48_500: "48k", 500_000: "500k", 1_234_567: "1.2M"} {
		if got := sizeOf(n); got != want {
			t.Errorf("sizeOf(%d): got %q, want %q", n, got, want)
		}
	}
}
