package page

import (
	"regexp"
	"unicode/utf8"
)

const (
	// maxSignals bounds the error signals reported of a page; maxSignalText the runes of each.
	maxSignals    = 5
	maxSignalText = 160
	// maxErrorLine is the longest text line read as an error message: longer ones are prose.
	maxErrorLine = 200
)

// errorWords are the wording of form errors in the languages pages come in. Alerts that say
// none of them may be confirmations ("Saved"), so only alerts and lines that say one count.
var errorWords = regexp.MustCompile(`(?i)\b(errors?|invalid|incorrect|not valid|is required|are required|must (?:be|contain|have|match|include)|please (?:correct|enter|fix|check|select|choose)|does not match|too (?:short|long)|failed|could not|couldn't|unable to)\b|` +
	`fehler|ungültig|erforderlich|muss |bitte (?:geben|korrigieren|wählen|prüfen)|falsch|` +
	`erreur|invalide|obligatoire|doit |veuillez (?:corriger|saisir|entrer|choisir)|incorrecte?|` +
	`inválid|obligatori|requerid|debe |por favor (?:corrija|introduzca|ingrese)|` +
	`errore|non valid|obbligatori|` +
	`ошибк|неверн|недопустим|обязательн|` +
	`エラー|無効|必須|正しくありません|错误|无效|必填|오류|잘못`)

// ErrorSignal is an error the page shows: an alert's text, a field marked invalid (by its
// name) or a line of text that reads as an error message.
type ErrorSignal struct {
	Kind string // "alert", "invalid field" or "text"
	Text string
}

// ErrorSignals lists the errors the page shows that are new since the page prevDigest
// describes (all of them when there is none): alerts (role alert) and short text lines that
// read as an error message, and fields newly marked aria-invalid. What was already there,
// such as a password hint or an error the model is busy fixing, is not the answer to the last
// action. At most maxSignals, each cut to maxSignalText runes.
func (p *Page) ErrorSignals(prevDigest []byte) []ErrorSignal {
	prev := fromDigest(prevDigest)
	if prev == nil {
		prev = &view{}
	}
	var out []ErrorSignal
	add := func(kind, text string) bool {
		if len(out) < maxSignals {
			out = append(out, ErrorSignal{Kind: kind, Text: text})
		}
		return len(out) < maxSignals
	}
	oldText := map[uint64]int{}
	for _, t := range prev.texts {
		oldText[t]++
	}
	isOld := func(t string) bool {
		h := newFNV()
		h.add(t)
		return oldText[uint64(h)] > 0
	}

	b := &builder{p: p}
	said := map[string]bool{}
	for i := range p.nodes {
		m := b.meta(int32(i))
		if m == nil || m.role != "alert" && m.role != "alertdialog" {
			continue
		}
		t := collapse(b.nodeText(int32(i), maxSignalText), maxSignalText)
		if t == "" || said[t] || isOld(t) || !errorWords.MatchString(t) {
			continue
		}
		said[t] = true
		if !add("alert", t) {
			return out
		}
	}

	lay := p.layout()
	before := map[[2]uint64]int{}
	for j, s := range prev.sigs {
		if j < len(prev.states) {
			before[[2]uint64{s, prev.states[j]}]++
		}
	}
	for i, e := range p.elements {
		v, ok := e.Attr("aria-invalid")
		if !ok || v == "false" || before[[2]uint64{lay.sigs[i], lay.states[i]}] > 0 {
			continue
		}
		if !add("invalid field", collapse(fieldName(e, lay.labels[i]), maxSignalText)) {
			return out
		}
	}

	seen := map[uint64]int{}
	for k, v := range oldText {
		seen[k] = v
	}
	for _, t := range p.texts {
		h := newFNV()
		h.add(t)
		if seen[uint64(h)] > 0 {
			seen[uint64(h)]--
			continue
		}
		c := collapse(t, maxSignalText)
		if utf8.RuneCountInString(t) > maxErrorLine || said[c] || !errorWords.MatchString(t) {
			continue
		}
		said[c] = true
		if !add("text", c) {
			return out
		}
	}
	return out
}

// fieldName is what names a field for a message: its text, label attributes or <label>.
func fieldName(e Element, label string) string {
	if e.Text != "" {
		return e.Text
	}
	for _, a := range []string{"aria-label", "name", "placeholder"} {
		if v, ok := e.Attr(a); ok && v != "" {
			return v
		}
	}
	return label
}
