package page

import "strings"

// Mask stands for the value of a password-like field wherever the value would be shown or
// stored.
const Mask = "••••••"

// isSecretField reports whether a field's value must never reach the model or storage:
// password inputs and inputs whose autocomplete names a password, a payment card detail
// (cc-number, cc-csc, ...) or a one-time code.
func isSecretField(tag, typ, autocomplete string) bool {
	if tag != "input" && tag != "textarea" {
		return false
	}
	if tag == "input" && strings.EqualFold(strings.TrimSpace(typ), "password") {
		return true
	}
	for _, tok := range strings.Fields(strings.ToLower(autocomplete)) {
		if strings.Contains(tok, "password") || strings.HasPrefix(tok, "cc-") || tok == "one-time-code" {
			return true
		}
	}
	return false
}

// maskSecrets replaces the values of password-like fields with Mask, so that no accessor
// and no rendering can show them.
func (p *Page) maskSecrets() {
	for i := range p.elements {
		e := &p.elements[i]
		typ, _ := e.Attr("type")
		if !isSecretField(e.Tag, typ, p.info[i].autocomplete) {
			continue
		}
		p.info[i].secret = true
		for k := range e.Attrs {
			if e.Attrs[k].Name == "value" && e.Attrs[k].Value != "" {
				e.Attrs[k].Value = Mask
			}
		}
		if e.Tag == "textarea" && e.Text != "" {
			e.Text = Mask
		}
	}
}

// Secret reports whether the element with this id is a password-like field (a password
// input, or an autocomplete of *password*, cc-* or one-time-code), so that a value typed
// into it is stored masked.
func (p *Page) Secret(id int) bool {
	i, ok := p.byID[id]
	return ok && p.info[i].secret
}
