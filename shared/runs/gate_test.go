package runs

import (
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/trust/gate"
)

func TestCheckGate(t *testing.T) {
	t.Parallel()
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
		{"click Pay Now", Tool{Name: ToolClick, ID: "pay"}, shop, `⚠️ Security check: click "Pay Now" may spend your money or commit you to a payment — the gate held it because of the text "Pay Now". Proceed?`},
		{"click a buy link by its label", Tool{Name: ToolClick, ID: "buy"}, shop, `the aria-label "Buy this item"`},
		{"click an order submit by its value", Tool{Name: ToolClick, ID: "order"}, shop, `the value "Place order"`},
		{"click purchase", Tool{Name: ToolClick, ID: "purchase"}, shop, `the text "Complete purchase"`},
		{"click a Russian pay button", Tool{Name: ToolClick, ID: "ru"}, shop, `the text "Оплатить заказ"`},
		{"type with submit", Tool{Name: ToolType, ID: "search", Text: "socks", Submit: true}, shop, `type "Search" may spend your money or commit you to a payment — the gate held it because of typing into a field and submitting its form`},
		{"click on a checkout page", Tool{Name: ToolClick, ID: "next"}, checkout, `click "Continue" may spend your money or commit you to a payment — the gate held it because of acting on the checkout or payment address shop.example/checkout`},
		{"type on a checkout page", Tool{Name: ToolType, ID: "card", Text: "4242"}, checkout, `type "Card number" may spend`},
		{"press on a payment page", Tool{Name: ToolPress, Key: "Enter"}, payment, `pressing "Enter" may spend your money or commit you to a payment — the gate held it because of acting on the checkout or payment address pay.example/payment/confirm`},
		{"navigate to checkout", Tool{Name: ToolNavigate, URL: "https://shop.example/Checkout"}, shop, "navigating to https://shop.example/Checkout may spend"},
		{"an element without text is named by its id", Tool{Name: ToolType, ID: "icon", Text: "x", Submit: true}, shop, `type "icon" may spend`},
		{"spaced letters", Tool{Name: ToolClick, ID: "spaced"}, shop, `click "P a y n o w"`},
		{"a zero-width space", Tool{Name: ToolClick, ID: "zw"}, shop, "the gate held it because of the text"},
		{"Cyrillic look-alikes", Tool{Name: ToolClick, ID: "cyrillic"}, shop, "the gate held it because of the text"},
		{"mathematical letters", Tool{Name: ToolClick, ID: "math"}, shop, "the gate held it because of the text"},
		{"subscribe", Tool{Name: ToolClick, ID: "subscribe"}, shop, `the text "Subscribe"`},
		{"German", Tool{Name: ToolClick, ID: "de"}, shop, `the text "Jetzt bezahlen"`},
		{"a link to checkout", Tool{Name: ToolClick, ID: "next"}, shop, `click "Next" may spend your money or commit you to a payment — the gate held it because of a link to the checkout or payment address shop.example/checkout`},
		{"a field name", Tool{Name: ToolClick, ID: "named"}, shop, `the field name "submitPayment"`},
		{"navigate to a pay host", Tool{Name: ToolNavigate, URL: "https://pay.example.com/s/1"}, shop, "the checkout or payment address pay.example.com/s/1"},
		{"Enter on a cart page", Tool{Name: ToolPress, Key: "Enter"}, cart, "pressing Enter on a cart page, which may place the order"},
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
			f, risky := checkGate(tc.tool, tc.page, gate.Default(), "ten/run/1", false)
			if tc.wantQuestion == "" {
				if risky {
					t.Errorf("checkGate() = %+v, want no finding", f)
				}
				return
			}
			if !risky || !strings.Contains(f.Question, tc.wantQuestion) || f.Cause == "" || !strings.HasPrefix(f.ConfirmationID, "cf_") {
				t.Errorf("checkGate() = %+v (%v), want a question containing %q, a reason and a confirmation id", f, risky, tc.wantQuestion)
			}
		})
	}
}
