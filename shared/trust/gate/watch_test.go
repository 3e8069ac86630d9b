package gate

import (
	"fmt"
	"slices"
	"testing"
)

// The warning before the action names exactly what Check would hold, on pages of several kinds.
func TestWatchWarnsExactlyWhereCheckHolds(t *testing.T) {
	r := Default()
	tests := []struct {
		name, pageURL, pageText string
		elems                   []Element
		wantCause               bool
		wantHeld                []int
	}{
		{"a plan page: only the paying button", "https://news.example/plans", "Choose a plan",
			[]Element{{Text: "Read more"}, {Text: "Subscribe for $5/month"}, {Text: "Sign in"}, {Text: "Newsletter", Href: "/newsletter"}}, false, []int{1}},
		{"a booking page without prices: nothing", "https://clinic.example/book", "Choose a time",
			[]Element{{Text: "10:00"}, {Text: "Central"}, {Text: "Next"}}, false, nil},
		{"a total on the page holds its generic Continue", "https://tickets.example/seats", "2 seats. Total due: $145.00",
			[]Element{{Text: "Back"}, {Text: "Continue"}}, false, []int{1}},
		{"a provider's link", "https://blog.example/support-us", "Thanks for reading",
			[]Element{{Text: "Tip jar", Href: "https://ko-fi.com/writer"}, {Text: "Archive", Href: "/archive"}}, false, []int{0}},
		{"a checkout page: everything, said once", "https://shop.example/checkout", "Shipping address",
			[]Element{{Text: "Back to cart"}, {Placeholder: "Street"}}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cause, held := r.Watch(tc.pageURL, tc.pageText, tc.elems)
			if (cause != "") != tc.wantCause || fmt.Sprint(held) != fmt.Sprint(tc.wantHeld) {
				t.Errorf("Watch() = %q, %v; want a page cause %v and held %v", cause, held, tc.wantCause, tc.wantHeld)
			}
			for i, el := range tc.elems {
				_, holds := r.Check(Action{Kind: Activate, Element: el, PageURL: tc.pageURL, PageText: tc.pageText})
				warned := cause != "" || slices.Contains(held, i)
				if holds != warned {
					t.Errorf("element %d %+v: Check holds %v, Watch warns %v; want the same", i, el, holds, warned)
				}
			}
		})
	}
}

func TestNoticeSaysNothingWhereNothingIsHeld(t *testing.T) {
	for _, tc := range []struct {
		cause string
		held  []string
		want  string
	}{
		{"", nil, ""},
		{"", []string{"12"}, "Payment gate: the server asks the user before a click on element 12 (it may spend money or commit the user to a payment)."},
		{"", []string{"agent-3", "agent-9"}, "Payment gate: the server asks the user before a click on elements agent-3, agent-9 (they may spend money or commit the user to a payment)."},
		{"the payment provider's page buy.stripe.com", []string{"1"}, "Payment gate: the server asks the user before any action on this page, because of the payment provider's page buy.stripe.com."},
	} {
		if got := Notice(tc.cause, tc.held); got != tc.want {
			t.Errorf("Notice(%q, %v) = %q, want %q", tc.cause, tc.held, got, tc.want)
		}
	}
}
