package page

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
)

// OverlayKind is what covers the page.
type OverlayKind string

const (
	OverlayDialog        OverlayKind = "dialog"      // role=dialog, <dialog open>, aria-modal="true"
	OverlayAlertDialog   OverlayKind = "alertdialog" // role=alertdialog
	OverlayCookieConsent OverlayKind = "cookie consent"
)

// Overlay is an open dialog, modal or cookie banner: what the user sees over the page and
// usually has to close before anything under it can be used.
type Overlay struct {
	Kind  OverlayKind
	Label string // its aria-label, title or heading; "" when it has none
	Modal bool   // it blocks the page (aria-modal, an alert dialog)
	IDs   []int  // ids of the elements inside it, in document order
	// DismissID is the element that closes it: for a cookie banner its "Accept all" or
	// "Accept" (else OK, close, and "Reject all" only when nothing else is there), for a
	// dialog its close, "No thanks" or OK control. -1 when it has none.
	DismissID int
}

// Overlays returns the page's open dialogs and cookie banners in document order, the
// outermost of nested ones.
func Overlays(p *pagemodel.Page) []Overlay {
	lay := layoutOf(p)
	out := make([]Overlay, 0, len(lay.overlays))
	for _, o := range lay.overlays {
		ov := Overlay{Kind: o.kind, Label: o.label, Modal: o.modal, DismissID: -1}
		best := noDismiss
		for i := o.lo; i < o.hi; i++ {
			e := p.Elements()[i]
			ov.IDs = append(ov.IDs, e.ID)
			if c := dismissRank(o.kind, dismissClassOf(e)); c < best {
				best, ov.DismissID = c, e.ID
			}
		}
		out = append(out, ov)
	}
	return out
}

// dismissClass is what a control does to an overlay, judged by its name.
type dismissClass int

const (
	dismissNone dismissClass = iota
	acceptAll
	accept
	acknowledge // OK, got it
	closeIt     // close, ×, dismiss
	declineOffer
	rejectAll
	reject
)

// noDismiss is the rank of a control that does not dismiss.
const noDismiss = 100

// dismissRank orders the classes by preference for an overlay kind (lower is better).
func dismissRank(kind OverlayKind, c dismissClass) int {
	order := []dismissClass{closeIt, declineOffer, acknowledge, acceptAll, accept, rejectAll, reject}
	if kind == OverlayCookieConsent {
		order = []dismissClass{acceptAll, accept, acknowledge, closeIt, declineOffer, rejectAll, reject}
	}
	for i, o := range order {
		if o == c {
			return i
		}
	}
	return noDismiss
}

// dismissPhrases are the names of dismissing controls in English, German, French,
// Spanish, Italian, Portuguese, Dutch and Russian; a name matches when it is a phrase or
// starts with one ("Accept all cookies").
var dismissPhrases = []struct {
	class   dismissClass
	phrases []string
}{
	{acceptAll, []string{"accept all", "allow all", "agree to all", "accept cookies", "allow cookies",
		"alle akzeptieren", "alle annehmen", "alle zulassen", "allen zustimmen", "alles akzeptieren",
		"tout accepter", "accepter tout", "accepter et fermer", "accepter les cookies",
		"aceptar todo", "aceptar todas", "aceptar cookies", "permitir todas",
		"accetta tutto", "accetta tutti", "accetta i cookie", "consenti tutti",
		"aceitar todos", "aceitar tudo", "aceitar cookies", "permitir todos",
		"alles accepteren", "alle cookies accepteren", "alles toestaan",
		"принять все", "разрешить все", "принять cookie"}},
	{accept, []string{"accept", "agree", "i agree", "i accept", "allow", "yes, i agree",
		"akzeptieren", "annehmen", "zustimmen", "einverstanden", "ich stimme zu", "zulassen",
		"accepter", "j'accepte", "j’accepte", "autoriser",
		"aceptar", "acepto", "de acuerdo", "permitir",
		"accetta", "accetto", "acconsento", "consenti",
		"aceitar", "aceito", "concordo", "permitir",
		"accepteren", "akkoord", "ik ga akkoord", "toestaan",
		"принять", "согласен", "согласна", "соглашаюсь", "разрешить"}},
	{acknowledge, []string{"ok", "okay", "got it", "i understand", "understood", "continue",
		"verstanden", "alles klar", "weiter", "compris", "d'accord", "d’accord", "continuer",
		"entendido", "entendi", "vale", "continuar", "ho capito", "va bene", "capito", "continua",
		"begrepen", "oké", "doorgaan", "понятно", "хорошо", "ок", "продолжить"}},
	{closeIt, []string{"close", "dismiss", "×", "✕", "✖", "x", "╳",
		"schließen", "schliessen", "fermer", "cerrar", "chiudi", "fechar", "sluiten", "закрыть"}},
	{declineOffer, []string{"no thanks", "no, thanks", "not now", "maybe later", "later", "skip", "remind me later",
		"nein danke", "nein, danke", "jetzt nicht", "später", "non merci", "non, merci", "plus tard",
		"no, gracias", "no gracias", "ahora no", "más tarde", "no grazie", "no, grazie", "non ora", "più tardi",
		"não, obrigado", "não obrigado", "agora não", "mais tarde", "nee bedankt", "nee, bedankt", "niet nu", "later",
		"нет, спасибо", "нет спасибо", "не сейчас", "позже"}},
	{rejectAll, []string{"reject all", "decline all", "deny all", "refuse all", "reject cookies",
		"alle ablehnen", "tout refuser", "refuser tout", "continuer sans accepter", "rechazar todo", "rechazar todas",
		"rifiuta tutto", "rifiuta tutti", "rejeitar todos", "recusar todos", "alles weigeren", "alle weigeren",
		"отклонить все", "отказаться от всех"}},
	{reject, []string{"reject", "decline", "deny", "refuse", "only necessary", "necessary only", "only essential",
		"use necessary cookies only", "ablehnen", "nur notwendige", "nur erforderliche", "refuser", "rechazar",
		"solo necesarias", "rifiuta", "solo necessari", "rejeitar", "recusar", "apenas necessários", "weigeren",
		"alleen noodzakelijke", "отклонить", "отказаться", "только необходимые"}},
}

// dismissClassOf judges a control by its name.
func dismissClassOf(e pagemodel.Element) dismissClass {
	if e.Kind() == pagemodel.KindInput {
		return dismissNone
	}
	for _, name := range accessibleNames(e) {
		n := normalizeName(name)
		if n == "" {
			continue
		}
		for _, dp := range dismissPhrases {
			for _, ph := range dp.phrases {
				if n == ph || (len(ph) > 2 && strings.HasPrefix(n, ph) && isBoundary(n[len(ph):])) {
					return dp.class
				}
			}
		}
	}
	return dismissNone
}

func accessibleNames(e pagemodel.Element) []string {
	names := []string{e.Text}
	for _, a := range e.Attrs {
		switch a.Name {
		case "aria-label", "title", "alt", "value":
			names = append(names, a.Value)
		}
	}
	return names
}

// normalizeName lower-cases a name, collapses its spaces and drops punctuation around it
// ("Accept all!" → "accept all").
func normalizeName(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) && r != '×' || r == '→' || r == '›'
	})
}

func isBoundary(rest string) bool {
	if rest == "" {
		return true
	}
	r := []rune(rest)[0]
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// consentWords mark text about cookies and consent; privacyWords only count together with
// a control that accepts or rejects.
var (
	consentWords = []string{"cookie", "consent", "gdpr", "rgpd", "dsgvo", "einwilligung", "consentement",
		"consentimiento", "consenso", "consentimento", "toestemming", "куки", "согласие на обработку", "tracking"}
	privacyWords = []string{"privacy", "datenschutz", "confidentialité", "privacidad", "riservatezza",
		"privacidade", "privacybeleid", "конфиденциальност", "персональных данных"}
)

var consentBytes, privacyBytes = byteWords(consentWords), byteWords(privacyWords)

// appendLower appends s in lower case, every rune whose lower case is as long in UTF-8
// (all but a few, such as the Kelvin sign), so that offsets in the result are offsets
// in s.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == size {
			dst = utf8.AppendRune(dst, l)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

func containsAnyBytes(s []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(s, w) {
			return true
		}
	}
	return false
}

func byteWords(words []string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

// findOverlays marks the open dialogs and the cookie banners of the page (the outermost
// of nested ones) and the nodes that hold them.
func (b *builder) findOverlays() {
	for i := range b.ov {
		b.ov[i] = -1
	}
	nodes := b.p.Nodes()
	end := make([]int32, len(nodes)) // a subtree is the nodes [i, end[i])
	for i := len(nodes) - 1; i >= 0; i-- {
		end[i] = int32(i + 1)
		if l := nodes[i].Last; l >= 0 {
			end[i] = end[l]
		}
	}
	for i := 1; i < len(nodes); {
		if kind, modal, ok := b.dialogKind(int32(i)); ok {
			b.addOverlay(int32(i), kind, modal)
			i = int(end[i])
			continue
		}
		i++
	}
	mentions := b.cookieMentions()
	found := make([]int32, 0, len(mentions))
	for n := range mentions {
		found = append(found, n)
	}
	slices.Sort(found)
	for _, n := range found {
		if a := b.consentBanner(n, mentions[n]); a >= 0 {
			b.markCookie(a, end)
		}
	}
	for _, o := range b.lay.overlays {
		b.keepLines(o.node)
	}
}

// cookieMentions are the nodes whose text is about cookies or privacy, each with whether it
// has a strong (cookie, consent) word: searched in all the page's text at once (the text nodes
// lie in order in it), then in the elements' own text ("Accept cookies").
func (b *builder) cookieMentions() map[int32]bool {
	nodes := b.p.Nodes()
	mentions := make(map[int32]bool)
	lower := appendLower(make([]byte, 0, len(b.p.Text())), b.p.Text())
	textNodes := make([]int32, 0, len(nodes)/2)
	for i := range nodes {
		if nodes[i].Tag == "" {
			textNodes = append(textNodes, int32(i))
		}
	}
	for k, words := range [][][]byte{consentBytes, privacyBytes} {
		for _, w := range words {
			for off := 0; ; {
				at := bytes.Index(lower[off:], w)
				if at < 0 {
					break
				}
				off += at
				t := sort.Search(len(textNodes), func(j int) bool { return nodes[textNodes[j]].End > int32(off) })
				if t < len(textNodes) && nodes[textNodes[t]].Start <= int32(off) {
					n := textNodes[t]
					mentions[n] = mentions[n] || k == 0
				}
				off += len(w)
			}
		}
	}
	var low []byte
	for i, e := range b.p.Elements() {
		low = appendLower(low[:0], e.Text)
		if strong := containsAnyBytes(low, consentBytes); strong || containsAnyBytes(low, privacyBytes) {
			n := b.p.ElementNode(i)
			mentions[n] = mentions[n] || strong
		}
	}
	return mentions
}

func (b *builder) dialogKind(n int32) (OverlayKind, bool, bool) {
	nd := &b.p.Nodes()[n]
	m := b.p.Meta(n)
	if m == nil {
		return "", false, false
	}
	switch {
	case m.Role == "alertdialog":
		return OverlayAlertDialog, true, true
	case m.Role == "dialog":
		return OverlayDialog, m.Modal, true
	case m.Modal:
		return OverlayDialog, true, true
	case nd.Tag == "dialog" && m.Open:
		return OverlayDialog, false, true
	}
	return "", false, false
}

func (b *builder) addOverlay(n int32, kind OverlayKind, modal bool) {
	o := overlay{node: n, kind: kind, modal: modal, dialog: kind, lo: b.lo[n], hi: max(b.lo[n], b.hi[n]), labelNode: -1}
	if m := b.p.Meta(n); m != nil && m.Label != "" {
		o.label, o.labelNode = m.Label, b.labelText(n, m.Label)
	} else if m != nil && m.Name != "" {
		o.label = m.Name
	} else if e := b.p.Nodes()[n].Elem; e >= 0 {
		if l, ok := b.p.Elements()[e].Attr("aria-label"); ok {
			o.label = l
		}
	}
	if o.label == "" {
		o.label, o.labelNode = b.headingOf(n)
	}
	b.ov[n] = int32(len(b.lay.overlays))
	b.lay.overlays = append(b.lay.overlays, o)
}

// consentBanner returns the smallest container around node n (text about cookies) that
// also holds a control accepting or rejecting them and is small enough to be a banner,
// or -1.
func (b *builder) consentBanner(n int32, strong bool) int32 {
	nodes := b.p.Nodes()
	hinted := false
	for a, k := nodes[n].Parent, 0; a > 0 && k < 8; a, k = nodes[a].Parent, k+1 {
		if m := b.p.Meta(a); m != nil && (m.Fixed || m.ConsentHint) {
			hinted = true
		}
		limit := int32(1200)
		if hinted {
			limit = 3000
		}
		if b.size[a] > limit {
			return -1
		}
		if !b.block[a] || b.lo[a] >= b.hi[a] {
			continue
		}
		for i := b.lo[a]; i < b.hi[a]; i++ {
			c := dismissClassOf(b.p.Elements()[i])
			if c == acceptAll || c == accept || c == rejectAll || c == reject || (strong && (c == acknowledge || c == closeIt)) {
				// Wrappers that add nothing around the banner belong to it.
				for p := nodes[a].Parent; p > 0 && b.size[p] <= b.size[a]+40 && b.block[p]; p = nodes[p].Parent {
					a = p
				}
				return a
			}
		}
	}
	return -1
}

// markCookie records node a as a cookie banner, or marks the overlay it is in (or that is
// in it) as one.
func (b *builder) markCookie(a int32, end []int32) {
	for i, o := range b.lay.overlays {
		if (o.node <= a && a < end[o.node]) || (a < o.node && o.node < end[a]) {
			b.lay.overlays[i].kind = OverlayCookieConsent
			return
		}
	}
	b.addOverlay(a, OverlayCookieConsent, false)
	b.lay.overlays[len(b.lay.overlays)-1].dialog = ""
	ovs := b.lay.overlays
	for j := len(ovs) - 1; j > 0 && ovs[j].node < ovs[j-1].node; j-- {
		ovs[j], ovs[j-1] = ovs[j-1], ovs[j]
	}
	for i, o := range ovs {
		b.ov[o.node] = int32(i)
	}
}

// overlayHeader is the header line of an overlay without an id of its own, e.g.
// `dialog "Cookie settings" (modal, covers the page, cookie consent)`.
func overlayHeader(o overlay) string {
	name := string(o.dialog)
	if name == "" {
		name = "banner"
	}
	return headerPrefix(name, o.label) + " (" + overlayNote(o) + ")"
}

// overlayNote says how an overlay covers the page.
func overlayNote(o overlay) string {
	var parts []string
	switch {
	case o.modal:
		parts = append(parts, "modal, covers the page")
	case o.dialog != "":
		parts = append(parts, "open, may cover the page")
	}
	if o.kind == OverlayCookieConsent {
		parts = append(parts, "cookie consent")
	}
	return strings.Join(parts, ", ")
}
