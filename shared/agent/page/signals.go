package page

import (
	"maps"
	"regexp"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
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
func ErrorSignals(p *pagemodel.Page, prevDigest []byte) []ErrorSignal {
	prev := pagemodel.ReadDigest(prevDigest)
	if prev == nil {
		prev = &pagemodel.Identity{}
	}
	oldText := map[uint64]int{}
	for _, t := range prev.Texts {
		oldText[t]++
	}
	s := &signals{said: map[string]bool{}}
	if s.alerts(p, oldText) && s.invalidFields(p, prev) {
		s.errorLines(p, oldText)
	}
	return s.out
}

// signals are the errors found so far, and the texts already said.
type signals struct {
	out  []ErrorSignal
	said map[string]bool
}

// add adds a signal unless there are maxSignals already, and says whether there is room for more.
func (s *signals) add(kind, text string) bool {
	if len(s.out) < maxSignals {
		s.out = append(s.out, ErrorSignal{Kind: kind, Text: text})
	}
	return len(s.out) < maxSignals
}

// alerts adds the alerts whose text reads as an error and was not on the previous page (as
// counted by oldText); false when no room is left.
func (s *signals) alerts(p *pagemodel.Page, oldText map[uint64]int) bool {
	for i := range p.Nodes() {
		m := p.Meta(int32(i))
		if m == nil || m.Role != "alert" && m.Role != "alertdialog" {
			continue
		}
		t := pagemodel.Collapse(p.NodeText(int32(i), maxSignalText), maxSignalText)
		if t == "" || s.said[t] || oldText[pagemodel.HashText(t)] > 0 || !errorWords.MatchString(t) {
			continue
		}
		s.said[t] = true
		if !s.add("alert", t) {
			return false
		}
	}
	return true
}

// invalidFields adds the fields marked aria-invalid that were not so on the previous page;
// false when no room is left.
func (s *signals) invalidFields(p *pagemodel.Page, prev *pagemodel.Identity) bool {
	lay, cur := layoutOf(p), p.Identity()
	before := map[[2]uint64]int{}
	for j, sig := range prev.Signatures {
		if j < len(prev.States) {
			before[[2]uint64{sig, prev.States[j]}]++
		}
	}
	for i, e := range p.Elements() {
		v, ok := e.Attr("aria-invalid")
		if !ok || v == "false" || before[[2]uint64{cur.Signatures[i], cur.States[i]}] > 0 {
			continue
		}
		if !s.add("invalid field", pagemodel.Collapse(fieldName(e, lay.labels[i]), maxSignalText)) {
			return false
		}
	}
	return true
}

// errorLines adds the short lines of text that read as an error and are new: beyond as many of
// the same line as the previous page had.
func (s *signals) errorLines(p *pagemodel.Page, oldText map[uint64]int) {
	cur := p.Identity()
	seen := maps.Clone(oldText)
	for i, t := range p.Texts() {
		if h := cur.Texts[i]; seen[h] > 0 {
			seen[h]--
			continue
		}
		c := pagemodel.Collapse(t, maxSignalText)
		if utf8.RuneCountInString(t) > maxErrorLine || s.said[c] || !errorWords.MatchString(t) {
			continue
		}
		s.said[c] = true
		if !s.add("text", c) {
			return
		}
	}
}

// fieldName is what names a field for a message: its text, label attributes or <label>.
func fieldName(e pagemodel.Element, label string) string {
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
