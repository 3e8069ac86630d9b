package page

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
)

func TestOverlays(t *testing.T) {
	cookie := func(text string, buttons ...string) string {
		var b strings.Builder
		b.WriteString(`<main><p>Article</p><a id="1" href="/x">More</a></main><div class="consent"><p>` + text + `</p>`)
		for i, l := range buttons {
			fmt.Fprintf(&b, `<button id="%d">%s</button>`, 10+i, l)
		}
		b.WriteString(`</div>`)
		return b.String()
	}
	tests := []struct {
		name string
		dom  string
		want []Overlay
	}{
		{"no overlay", `<p>Hello</p><button id="1">OK</button>`, []Overlay{}},
		{
			"cookie modal: accept all over reject all",
			`<div role="dialog" aria-modal="true" aria-label="Cookie settings"><p>We use cookies.</p><button id="41">Reject all</button><button id="42">Accept all</button></div>`,
			[]Overlay{{Kind: OverlayCookieConsent, Label: "Cookie settings", Modal: true, IDs: []int{41, 42}, DismissID: 42}},
		},
		{"en", cookie("We use cookies to improve your experience.", "Settings", "Accept"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 11}}},
		{"de", cookie("Wir verwenden Cookies.", "Einstellungen", "Alle akzeptieren"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 11}}},
		{"fr", cookie("Ce site utilise des cookies.", "Tout refuser", "Tout accepter"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 11}}},
		{"es", cookie("Usamos cookies propias y de terceros.", "Configurar", "Aceptar todas"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 11}}},
		{"it", cookie("Questo sito utilizza cookie.", "Rifiuta", "Accetta tutti"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 11}}},
		{"pt", cookie("Utilizamos cookies.", "Aceitar todos"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10}, DismissID: 10}}},
		{"nl", cookie("Wij gebruiken cookies.", "Alles accepteren", "Weigeren"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 10}}},
		{"ru", cookie("Мы используем файлы cookie.", "Настроить", "Принять все"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 11}}},
		{"reject all is the only way out", cookie("We use cookies.", "Manage preferences", "Reject all"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10, 11}, DismissID: 11}}},
		{"got it", cookie("This site uses cookies.", "Got it!"), []Overlay{{Kind: OverlayCookieConsent, IDs: []int{10}, DismissID: 10}}},
		{
			"newsletter modal: no thanks rather than subscribe",
			`<div role="dialog" aria-modal="true"><h2>Join our newsletter</h2><input id="5" type="email"><button id="6">Subscribe</button><button id="7">No thanks</button></div>`,
			[]Overlay{{Kind: OverlayDialog, Label: "Join our newsletter", Modal: true, IDs: []int{5, 6, 7}, DismissID: 7}},
		},
		{
			"close by its label, an icon",
			`<dialog open aria-label="Share"><button id="8" aria-label="Close dialog"><svg></svg></button><a id="9" href="/s">Copy</a></dialog>`,
			[]Overlay{{Kind: OverlayDialog, Label: "Share", IDs: []int{8, 9}, DismissID: 8}},
		},
		{
			"alert dialog with OK, and a dialog with nothing to dismiss it",
			`<div role="alertdialog" aria-label="Error"><p>Payment failed.</p><button id="1">OK</button></div><div role="dialog"><p>Delete?</p><button id="2">Delete</button></div>`,
			[]Overlay{{Kind: OverlayAlertDialog, Label: "Error", Modal: true, IDs: []int{1}, DismissID: 1}, {Kind: OverlayDialog, IDs: []int{2}, DismissID: -1}},
		},
		{"a closed dialog is no overlay", `<dialog><button id="1">Close</button></dialog>`, []Overlay{}},
		{"a privacy link in a footer is no banner", `<footer><a id="1" href="/privacy">Privacy policy</a><a id="2" href="/terms">Terms</a></footer>`, []Overlay{}},
		{"a cookie recipe is no banner", `<article><h1>Chocolate chip cookies</h1><p>Bake for 12 minutes.</p><button id="3">Save recipe</button></article>`, []Overlay{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Overlays(pagemodel.Parse(tc.dom)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
