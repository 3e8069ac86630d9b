package gate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCheckNamesTheCause: the finding says in plain words what made the gate hold, so the
// question to the user never names only a plain label such as "Next".
func TestCheckNamesTheCause(t *testing.T) {
	shop := "https://shop.example/product/7"
	cases := []struct {
		name       string
		action     Action
		wantCause  string
		wantAmount string
	}{
		{"an aria-label behind a plain label", Action{Kind: Activate, PageURL: shop, Element: Element{Text: "Next", AriaLabel: "Pay now"}}, `the aria-label "Pay now"`, ""},
		{"a title", Action{Kind: Activate, PageURL: shop, Element: Element{Text: "Go", Title: "Place your order"}}, `the title "Place your order"`, ""},
		{"a button value", Action{Kind: Activate, PageURL: shop, Element: Element{Value: "Jetzt kaufen"}}, `the value "Jetzt kaufen"`, ""},
		{"an amount", Action{Kind: Activate, PageURL: shop, Element: Element{Text: "Pay €49"}}, `the text "Pay €49"`, "€49"},
		{"an amount in Arabic digits", Action{Kind: Activate, PageURL: shop, Element: Element{Text: "ادفع ١٢٠ ر.س"}}, `the text "ادفع ١٢٠ ر.س"`, "١٢٠ ر.س"},
		{"a provider's checkout link", Action{Kind: Activate, PageURL: shop, Element: Element{Text: "Continue", Href: "https://buy.stripe.com/28o5kq"}},
			"a link to the payment provider's page buy.stripe.com", ""},
		{"a navigation to a provider", Action{Kind: Navigate, PageURL: shop, URL: "https://checkout.paddle.com/checkout/custom/x"}, "the payment provider's page checkout.paddle.com", ""},
		{"a confirm path", Action{Kind: Navigate, PageURL: shop, URL: "https://shop.example/order/confirm"}, "the checkout or payment address shop.example/order/confirm", ""},
		{"a total on the page", Action{Kind: Activate, PageURL: "https://tickets.example/seats", PageText: "2 seats · Total due: $145.00", Element: Element{Text: "Continue"}},
			`"Continue" on a page that shows an amount to pay ($145.00)`, "$145.00"},
		{"the model's flag", Action{Kind: Activate, PageURL: shop, Element: Element{Text: "Save"}, ModelFlag: true}, "the model's own judgement", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, held := Default().Check(tc.action)
			if !held || f.Cause != tc.wantCause && !strings.Contains(f.Cause, tc.wantCause) || f.Amount != tc.wantAmount {
				t.Errorf("Check() = %+v, %v; want held because of %q, amount %q", f, held, tc.wantCause, tc.wantAmount)
			}
			if q := f.Question(`click "Next"`); !strings.Contains(q, f.Cause) {
				t.Errorf("Question() = %q, want it to name the cause %q", q, f.Cause)
			}
		})
	}
}

// TestCheckLetsLookAlikesPass: pages and labels about payments, and generic labels away from a
// total, are not held.
func TestCheckLetsLookAlikesPass(t *testing.T) {
	shop := "https://shop.example/product/7"
	for name, a := range map[string]Action{
		"pay attention":           {Kind: Activate, PageURL: shop, Element: Element{Text: "Pay attention to the small print"}},
		"payment methods":         {Kind: Activate, PageURL: shop, Element: Element{Text: "Payment methods"}},
		"a help aria-label":       {Kind: Activate, PageURL: shop, Element: Element{Text: "?", AriaLabel: "Payment help"}},
		"a price on a product":    {Kind: Activate, PageURL: shop, Element: Element{Text: "Desk lamp $39.00", Href: "/product/8"}},
		"the provider's docs":     {Kind: Navigate, PageURL: shop, URL: "https://stripe.com/docs/payments/checkout"},
		"a blog post on checkout": {Kind: Navigate, PageURL: shop, URL: "https://blog.example.com/checkout-ux"},
		"continue without total":  {Kind: Activate, PageURL: shop, PageText: "Price $39.00", Element: Element{Text: "Continue"}},
		"typing without submit":   {Kind: Input, PageURL: shop, Element: Element{Placeholder: "Card number"}},
		"observing":               {Kind: None, PageURL: "https://shop.example/checkout"},
	} {
		if f, held := Default().Check(a); held {
			t.Errorf("%s: Check() held it (%s), want it let through", name, f.Cause)
		}
	}
}

// TestConfirmationID: the id binds an approval to one action in one scope.
func TestConfirmationID(t *testing.T) {
	a := Action{Kind: Activate, PageURL: "https://shop.example/basket", Element: Element{Text: "Pay €49"}}
	b := a
	b.Element.Text = "Pay €490"
	id := ConfirmationID("ten/run/3", a)
	for name, other := range map[string]string{
		"another amount": ConfirmationID("ten/run/3", b),
		"another scope":  ConfirmationID("ten/run/4", a),
	} {
		if other == id {
			t.Errorf("%s: same confirmation id %q, want another", name, id)
		}
	}
	if again := ConfirmationID("ten/run/3", a); again != id || !strings.HasPrefix(id, "cf_") {
		t.Errorf("ConfirmationID() = %q then %q, want one stable cf_ id", id, again)
	}
}

// FuzzCheck: any label, attribute, URL or page text, however odd, is judged without panicking;
// padding a label with spaces changes nothing; a held action's cause is valid UTF-8 and its
// question names it; the model's flag can only add to the judgement.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"Pay now", "P a y", "\u0420\u0430\u0443", "Order history", "立即购买", "\xff\xfe", "0", "ᴘ\u200dᴀʏ",
		"ادفع ٤٩٫٩٩ ر.س", "₹४९९ का भुगतान करें", "https://buy.stripe.com/x", "Total: $1", "#1042", "&#x50;ay"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, label, other string) {
		r := Default()
		_, a := r.Label(label)
		_, b := r.Label("  " + label + "  ")
		if a != b {
			t.Errorf("Label(%q) = %v but padded = %v", label, a, b)
		}
		r.Identifier(label)
		r.Place(label)
		for _, act := range []Action{
			{Kind: Activate, PageURL: other, PageText: other, Element: Element{Text: label, AriaLabel: other, Href: other}},
			{Kind: Navigate, URL: label, PageURL: other},
			{Kind: Key, Key: label, PageURL: other},
		} {
			fi, held := r.Check(act)
			if held && (!utf8.ValidString(fi.Cause) && utf8.ValidString(label+other) || fi.Cause == "") {
				t.Errorf("Check(%+v) cause %q, want a valid, non-empty cause", act, fi.Cause)
			}
			act.ModelFlag = true
			if _, flagged := r.Check(act); !flagged {
				t.Errorf("Check(%+v) with the model's flag = %v (without: %v), want held", act, flagged, held)
			}
		}
	})
}
