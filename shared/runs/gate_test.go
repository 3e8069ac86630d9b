package runs

import (
	"strings"
	"testing"
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
	}}
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

		{"click an ordinary button", Tool{Name: ToolClick, ID: "display"}, shop, ""},
		{"type without submit", Tool{Name: ToolType, ID: "search", Text: "socks"}, shop, ""},
		{"observe a checkout page", Tool{Name: ToolObserve}, checkout, ""},
		{"scroll a checkout page", Tool{Name: ToolScroll, DeltaY: 300}, checkout, ""},
		{"navigate elsewhere", Tool{Name: ToolNavigate, URL: "https://shop.example/pricing"}, shop, ""},
		{"press on an ordinary page", Tool{Name: ToolPress, Key: "Enter"}, shop, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, risky := checkGate(tc.tool, tc.page)
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
