package runs

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/trust/gate"
)

func TestCheckGate(t *testing.T) {
	shop := &Snapshot{URL: "https://shop.example/product/42", Elements: []Element{
		{ID: "pay", Tag: "button", Text: "Pay Now"},
		{ID: "buy", Tag: "a", AriaLabel: "Buy this item"},
		{ID: "order", Tag: "input", Type: "submit", Value: "Place order"},
		{ID: "purchase", Tag: "button", Text: "Complete purchase"},
		{ID: "ru", Tag: "button", Text: "Оплатить заказ"},
		{ID: "display", Tag: "button", Text: "Display options"},
		{ID: "search", Tag: "input", Placeholder: "Search"},
		{ID: "icon", Tag: "button"},
		{ID: "spaced", Tag: "button", Text: "P a y  n o w"},
		{ID: "zw", Tag: "button", Text: "Pay\u200bnow"},
		{ID: "cyrillic", Tag: "button", Text: "\u0420\u0430\u0443"},
		{ID: "math", Tag: "button", Text: "𝐁𝐮𝐲"},
		{ID: "subscribe", Tag: "button", Text: "Subscribe"},
		{ID: "de", Tag: "button", Text: "Jetzt bezahlen"},
		{ID: "next", Tag: "a", Text: "Next", Href: "https://shop.example/checkout"},
		{ID: "named", Tag: "button", Name: "submitPayment"},
		{ID: "history", Tag: "a", Text: "Order history"},
		{ID: "payroll", Tag: "a", Text: "Payroll"},
	}}
	cart := &Snapshot{URL: "https://shop.example/cart", Elements: []Element{{ID: "qty", Tag: "input", Placeholder: "Quantity"}}}
	checkout := &Snapshot{URL: "https://shop.example/checkout?step=2", Elements: []Element{{ID: "next", Tag: "button", Text: "Continue"}, {ID: "card", Tag: "input", Placeholder: "Card number"}}}
	payment := &Snapshot{URL: "https://pay.example/payment/confirm", Elements: []Element{{ID: "ok", Tag: "button", Text: "OK"}}}
	cases := []struct {
		name         string
		tool         Tool
		page         *Snapshot
		wantQuestion string
	}{
		{"click Pay Now", Tool{Name: ToolClick, ID: "pay"}, shop, "⚠️ Security check: Attempting to click 'Pay Now'. Proceed?"},
		{"click a buy link by its label", Tool{Name: ToolClick, ID: "buy"}, shop, "click 'Buy this item'"},
		{"click an order submit by its value", Tool{Name: ToolClick, ID: "order"}, shop, "click 'Place order'"},
		{"click purchase", Tool{Name: ToolClick, ID: "purchase"}, shop, "click 'Complete purchase'"},
		{"click a Russian pay button", Tool{Name: ToolClick, ID: "ru"}, shop, "click 'Оплатить заказ'"},
		{"type with submit", Tool{Name: ToolType, ID: "search", Text: "socks", Submit: true}, shop, "type into 'Search' and submit the form"},
		{"click on a checkout page", Tool{Name: ToolClick, ID: "next"}, checkout, "click 'Continue' on a checkout or payment page"},
		{"type on a checkout page", Tool{Name: ToolType, ID: "card", Text: "4242"}, checkout, "type 'Card number' on a checkout or payment page"},
		{"press on a payment page", Tool{Name: ToolPress, Key: "Enter"}, payment, "press 'Enter' on a checkout or payment page"},
		{"navigate to checkout", Tool{Name: ToolNavigate, URL: "https://shop.example/Checkout"}, shop, "navigate to a checkout or payment page"},
		{"an element without text is named by its id", Tool{Name: ToolType, ID: "icon", Text: "x", Submit: true}, shop, "type into 'icon'"},
		{"spaced letters", Tool{Name: ToolClick, ID: "spaced"}, shop, "click 'P a y n o w'"},
		{"a zero-width space", Tool{Name: ToolClick, ID: "zw"}, shop, "Attempting to click"},
		{"Cyrillic look-alikes", Tool{Name: ToolClick, ID: "cyrillic"}, shop, "Attempting to click"},
		{"mathematical letters", Tool{Name: ToolClick, ID: "math"}, shop, "Attempting to click"},
		{"subscribe", Tool{Name: ToolClick, ID: "subscribe"}, shop, "click 'Subscribe'"},
		{"German", Tool{Name: ToolClick, ID: "de"}, shop, "click 'Jetzt bezahlen'"},
		{"a link to checkout", Tool{Name: ToolClick, ID: "next"}, shop, "click 'Next', a link to a checkout or payment page"},
		{"a field name", Tool{Name: ToolClick, ID: "named"}, shop, "click 'submitPayment'"},
		{"navigate to a pay host", Tool{Name: ToolNavigate, URL: "https://pay.example.com/s/1"}, shop, "navigate to a checkout or payment page"},
		{"Enter on a cart page", Tool{Name: ToolPress, Key: "Enter"}, cart, "press 'Enter' on a cart page"},
		{"Space on a cart page", Tool{Name: ToolPress, Key: " "}, cart, "on a cart page"},

		{"click an ordinary button", Tool{Name: ToolClick, ID: "display"}, shop, ""},
		{"type without submit", Tool{Name: ToolType, ID: "search", Text: "socks"}, shop, ""},
		{"observe a checkout page", Tool{Name: ToolObserve}, checkout, ""},
		{"scroll a checkout page", Tool{Name: ToolScroll, DeltaY: 300}, checkout, ""},
		{"navigate elsewhere", Tool{Name: ToolNavigate, URL: "https://shop.example/pricing"}, shop, ""},
		{"press on an ordinary page", Tool{Name: ToolPress, Key: "Enter"}, shop, ""},
		{"Tab on a cart page", Tool{Name: ToolPress, Key: "Tab"}, cart, ""},
		{"typing a quantity on a cart page", Tool{Name: ToolType, ID: "qty", Text: "2"}, cart, ""},
		{"order history", Tool{Name: ToolClick, ID: "history"}, shop, ""},
		{"payroll", Tool{Name: ToolClick, ID: "payroll"}, shop, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, risky := checkGate(tc.tool, tc.page, gate.Default())
			if tc.wantQuestion == "" {
				if risky {
					t.Errorf("checkGate() = %+v, want no finding", f)
				}
				return
			}
			if !risky || !strings.Contains(f.Question, tc.wantQuestion) || f.Reason == "" {
				t.Errorf("checkGate() = %+v (%v), want a question containing %q and a reason", f, risky, tc.wantQuestion)
			}
		})
	}
}

// The gate's bar on its labelled actions (issue 16).
const (
	minRecall      = 0.98
	maxFalseAlarms = 0.05
)

// TestGateOnLabelledActions measures the gate on testdata/gate_labelled.tsv, actions labelled
// risky (the gate must ask) or safe (it must not) in several languages, and holds it to a recall
// of at least 98% and at most 5% false alarms. The file's "Figures:" line must state the result,
// so the figures in the repository stay true.
func TestGateOnLabelledActions(t *testing.T) {
	const path = "testdata/gate_labelled.tsv"
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var caught, missed, alarms, quiet int
	var stated string
	perLang := map[string][2]int{} // correct, total
	sc := bufio.NewScanner(file)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "# Figures: "); ok {
			stated = f
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 6 || (fields[0] != "risky" && fields[0] != "safe") {
			t.Fatalf("%s:%d: want 6 tab-separated fields starting with risky or safe, got %q", path, n, line)
		}
		want, lang, tool, pageURL, arg := fields[0], fields[1], fields[2], fields[3], fields[5]
		label, err := strconv.Unquote(`"` + strings.ReplaceAll(fields[4], `"`, `\"`) + `"`)
		if err != nil {
			t.Fatalf("%s:%d: label %q: %v", path, n, fields[4], err)
		}
		call, page := labelledAction(tool, pageURL, label, arg)
		if call.Name == "" {
			t.Fatalf("%s:%d: unknown tool %q", path, n, tool)
		}
		_, asked := checkGate(call, page, gate.Default())
		c := perLang[lang]
		c[1]++
		switch {
		case want == "risky" && asked:
			caught++
		case want == "risky":
			missed++
			t.Logf("missed (risky, not asked): %s %s %q %s on %s", lang, tool, label, arg, pageURL)
		case asked:
			alarms++
			t.Logf("false alarm (safe, asked): %s %s %q %s on %s", lang, tool, label, arg, pageURL)
		default:
			quiet++
		}
		if asked == (want == "risky") {
			c[0]++
		}
		perLang[lang] = c
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	recall := float64(caught) / float64(caught+missed)
	falseAlarms := float64(alarms) / float64(alarms+quiet)
	figures := fmt.Sprintf("recall %.3f (%d of %d risky), false alarms %.1f%% (%d of %d safe).",
		recall, caught, caught+missed, 100*falseAlarms, alarms, alarms+quiet)
	t.Logf("gate on %d labelled actions: %s", caught+missed+alarms+quiet, figures)
	for _, lang := range slices.Sorted(maps.Keys(perLang)) {
		t.Logf("  %s: %d of %d right", lang, perLang[lang][0], perLang[lang][1])
	}
	if recall < minRecall || falseAlarms > maxFalseAlarms {
		t.Errorf("%s; want a recall of at least %.2f and at most %.0f%% false alarms", figures, minRecall, 100*maxFalseAlarms)
	}
	if stated != figures {
		t.Errorf("%s states %q; update its line to\n# Figures: %s", path, stated, figures)
	}
}

// labelledAction is the call and page of a labelled action: the labelled element is agent-1.
func labelledAction(tool, pageURL, label, arg string) (Tool, *Snapshot) {
	el := Element{ID: "agent-1", Tag: "button", Text: label}
	var call Tool
	switch tool {
	case "click":
		call = Tool{Name: ToolClick, ID: el.ID}
		if arg != "" {
			el.Tag, el.Href = "a", arg
		}
	case "navigate":
		call = Tool{Name: ToolNavigate, URL: arg}
	case "press":
		call = Tool{Name: ToolPress, Key: map[string]string{"Space": " "}[arg]}
		if call.Key == "" {
			call.Key = arg
		}
	case "type", "type+submit":
		el.Tag, el.Text, el.Placeholder = "input", "", label
		call = Tool{Name: ToolType, ID: el.ID, Text: "x", Submit: tool == "type+submit"}
	case "scroll":
		call = Tool{Name: ToolScroll, DeltaY: 600}
	case "observe":
		call = Tool{Name: ToolObserve}
	}
	return call, &Snapshot{URL: pageURL, Elements: []Element{el}}
}
