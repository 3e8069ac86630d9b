package gate

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"case", "PAY Now", "pay now"},
		{"fullwidth", "Ｐａｙ", "pay"},
		{"mathematical bold", "𝐏𝐚𝐲", "pay"},
		{"mathematical sans-serif bold italic", "𝙋𝙖𝙮", "pay"},
		{"circled", "ⓅⒶⓎ", "pay"},
		{"zero-width space", "Pa\u200By", "pay"},
		{"zero-width joiner and non-joiner", "P\u200Da\u200Cy", "pay"},
		{"soft hyphen", "Pa\u00ADy", "pay"},
		{"word joiner and BOM", "P\u2060a\uFEFFy", "pay"},
		{"variation selector", "Pa\uFE0Fy", "pay"},
		{"combining marks", "P\u0301a\u0308y", "pay"},
		{"Cyrillic look-alikes", "\u0420\u0430\u0443", "pay"},
		{"Cyrillic capitals", "\u0412\u0423\u0425", "byx"},
		{"Greek look-alikes", "\u039Frder", "order"},
		{"small capitals", "ᴘᴀʏ", "pay"},
		{"accents", "Réserver", "reserver"},
		{"Hangul filler", "Pa\u3164y", "pay"},
	}
	for _, tc := range cases {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("%s: Normalize(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestLabel covers the bypasses of issue 16 and the labels it wrongly held.
func TestLabel(t *testing.T) {
	risky := []string{
		"Pay", "Pay now", "P a y  n o w", "Pa-y", "Pay\u200Bnow", "Pa\u00ADy", "\u0420\u0430\u0443", "Ｐａｙ", "𝐏𝐚𝐲 𝐧𝐨𝐰",
		"B00K N0W", "Che ckout", "Subscribe", "Donate $50", "Transfer funds", "Complete booking", "Jetzt bezahlen",
		"Comprar ahora", "Place order", "Order now", "$50 Order", "Book a room", "Оплатить заказ", "立即购买", "결제하기",
		"S’abonner", "Zapłać teraz",
	}
	safe := []string{
		"Order history", "Payroll", "Book a demo of the docs", "Sort order", "Address book", "Add to cart", "Purchase history",
		"Unsubscribe", "Buyer protection", "Payday", "Transfer ownership", "購入履歴", "Мои заказы", "", "   ", "12345",
	}
	r := Default()
	for _, s := range risky {
		if _, ok := r.Label(s); !ok {
			t.Errorf("Label(%q) = not risky, want risky", s)
		}
	}
	for _, s := range safe {
		if term, ok := r.Label(s); ok {
			t.Errorf("Label(%q) = risky (%q), want safe", s, term)
		}
	}
}

func TestIdentifier(t *testing.T) {
	for s, want := range map[string]bool{
		"payNow": true, "submit_payment": true, "buy-button": true, "placeOrder": true,
		"sortOrder": false, "orderBy": false, "q": false, "bookmark": false,
	} {
		if got := Default().Identifier(s); got != want {
			t.Errorf("Identifier(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPlace(t *testing.T) {
	cases := []struct {
		url  string
		want Place
	}{
		{"https://pay.example.com/", Payment},
		{"https://checkout.stripe.com/c/pay/cs_test", Payment},
		{"https://payments.example.com/", Payment},
		{"https://shop.example/checkout?step=2", Payment},
		{"https://shop.example/Checkout", Payment},
		{"https://shop.example/onepagecheckout", Payment},
		{"https://shop.example/placeOrder", Payment},
		{"https://shop.example/index.php?route=checkout/checkout", Payment},
		{"https://shop.example/#/payment", Payment},
		{"https://shop.de/kasse", Payment},
		{"/payment", Payment},
		{"https://shop.example/cart", Cart},
		{"https://shop.example/basket?x=1", Cart},
		{"https://shop.de/warenkorb", Cart},
		{"https://payroll.example.com/", Elsewhere},
		{"https://shop.example/account/orders", Elsewhere},
		{"https://shop.example/blog/what-is-one-click-checkout", Elsewhere},
		{"https://news.example/2026/why-stores-drop-the-payment-page", Elsewhere},
		{"https://www.gofundme.com/f/help-the-shelter/donate", Payment},
		{"https://shop.example/checkout/how-it-works", Payment},
		{"https://shop.example/cartoons", Elsewhere},
		{"https://shop.example/", Elsewhere},
		{"not a url %%", Elsewhere},
	}
	for _, tc := range cases {
		if got := Default().Place(tc.url); got != tc.want {
			t.Errorf("Place(%q) = %d, want %d", tc.url, got, tc.want)
		}
	}
}

func TestCustom(t *testing.T) {
	c := Custom{Words: []string{"Approve invoice", "Freigeben"}, URLPatterns: []string{"*.acme.com/billing", "erp.example.net", "/approvals"}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	r := New(c)
	for _, s := range []string{"Approve invoice", "A p p r o v e  i n v o i c e", "Jetzt freigeben"} {
		if _, ok := r.Label(s); !ok {
			t.Errorf("Label(%q) with the tenant's words = not risky, want risky", s)
		}
	}
	if _, ok := Default().Label("Approve invoice"); ok {
		t.Error("the built-in rules hold a tenant's word")
	}
	for u, want := range map[string]Place{
		"https://app.acme.com/billing/invoices/7": Payment,
		"https://app.acme.com/billingfaq":         Elsewhere,
		"https://acme.com/billing":                Elsewhere, // *. is the subdomains only
		"https://erp.example.net/anything":        Payment,
		"https://other.example/approvals?id=3":    Payment,
		"https://other.example/approvalsx":        Elsewhere,
	} {
		if got := r.Place(u); got != want {
			t.Errorf("Place(%q) with the tenant's patterns = %d, want %d", u, got, want)
		}
	}
	for _, bad := range []Custom{
		{Words: []string{"  "}},
		{Words: []string{"---"}},
		{Words: []string{strings.Repeat("w", MaxCustomWordLen+1)}},
		{URLPatterns: []string{"https://acme.com/pay"}},
		{URLPatterns: []string{"/"}},
		{URLPatterns: []string{"acme.com/pay now"}},
		{URLPatterns: []string{"ac me.com"}},
		{URLPatterns: []string{"*"}},
		{Words: make([]string, MaxCustomWords+1)},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
}
