package pagemodel

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/screenagent/backend/shared/trust"

	xhtml "golang.org/x/net/html"
)

// Mask stands for the value of a password-like field wherever the value would be shown or
// stored.
const Mask = trust.Mask

// secretAttrs are the attributes trust.SecretField reads of a field.
var secretAttrs = []string{"type", "autocomplete", "name", "id", "aria-label", "placeholder", "title", "inputmode", "maxlength", "style"}

// secretField is what trust.SecretFields reads of a field, from its tag and attributes by name.
func secretField(tag string, attr func(string) string) trust.Field {
	maxLength, _ := strconv.Atoi(strings.TrimSpace(attr("maxlength")))
	return trust.Field{
		Tag: tag, Type: attr("type"), Autocomplete: attr("autocomplete"), Name: attr("name"), ID: attr("id"),
		AriaLabel: attr("aria-label"), Placeholder: attr("placeholder"), Title: attr("title"), Value: attr("value"),
		InputMode: attr("inputmode"), MaxLength: maxLength, Masked: trust.MaskedStyle(attr("style")),
	}
}

// maskSecrets replaces the values of password-like fields (trust.SecretFields) with Mask, so
// that no accessor and no rendering can show them.
func (p *Page) maskSecrets() {
	fields := make([]trust.Field, len(p.elements))
	for i, e := range p.elements {
		f := secretField(e.Tag, func(name string) string {
			v, _ := e.Attr(name)
			return v
		})
		f.Autocomplete, f.InputMode, f.MaxLength, f.Masked = p.info[i].autocomplete, p.info[i].inputMode, p.info[i].maxLength, p.info[i].masked
		fields[i] = f
	}
	for i, secret := range trust.SecretFields(fields) {
		if !secret {
			continue
		}
		e := &p.elements[i]
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

// RedactDOM returns the DOM with the values of password-like fields (the value attribute
// of such inputs, the text of such textareas) replaced by Mask, and every other byte as
// it was: what may be stored of a page. In a templatized DOM the template argument (or
// template text) that a secret value comes from is masked instead.
func RedactDOM(dom string) string {
	var pieces []piece
	expanded, templated := expand(dom, &pieces)
	values := secretValues(expanded)
	if len(values) == 0 {
		return dom
	}
	var edits []domEdit
	for _, v := range values {
		if !templated {
			edits = append(edits, domEdit{v[0], v[1], Mask})
			continue
		}
		edits = append(edits, templateEdits(v, pieces)...)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	b.Grow(len(dom))
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue // the same argument or template text, masked already
		}
		b.WriteString(dom[at:e.start])
		b.WriteString(e.with)
		at = e.end
	}
	b.WriteString(dom[at:])
	return b.String()
}

// domEdit replaces dom[start:end] with with.
type domEdit struct {
	start, end int
	with       string
}

// templateEdits mask where the expanded DOM's range v came from: a template argument whole
// (as a JSON string), or the part of a template's text within v.
func templateEdits(v [2]int, pieces []piece) []domEdit {
	var edits []domEdit
	// The pieces are in output order: find the first that ends after the value starts.
	k := sort.Search(len(pieces), func(k int) bool { return pieces[k].outEnd > v[0] })
	for ; k < len(pieces) && pieces[k].out < v[1]; k++ {
		pc := pieces[k]
		if pc.arg {
			edits = append(edits, domEdit{pc.src, pc.srcEnd, `"` + Mask + `"`})
			continue
		}
		from, to := max(v[0], pc.out), min(v[1], pc.outEnd)
		edits = append(edits, domEdit{pc.src + from - pc.out, pc.src + to - pc.out, Mask})
	}
	return edits
}

// secretValues returns the byte ranges of s holding values of password-like fields
// (trust.SecretFields over the page's fields in order): the value attribute of such an input,
// the text of such a textarea.
func secretValues(s string) [][2]int {
	fields := formFields(s)
	fs := make([]trust.Field, len(fields))
	for i, fd := range fields {
		fs[i] = fd.f
		if fd.f.Tag == "textarea" && fd.value[1] > fd.value[0] {
			fs[i].Value = s[fd.value[0]:fd.value[1]]
		}
	}
	var out [][2]int
	for i, secret := range trust.SecretFields(fs) {
		if secret && fields[i].value[1] > fields[i].value[0] {
			out = append(out, fields[i].value)
		}
	}
	return out
}

// formField is an input or textarea of the page as trust.SecretFields judges it, with the range
// of its value attribute or textarea text in the page ([0,0] for none).
type formField struct {
	f     trust.Field
	value [2]int
}

// formFields lists the inputs and textareas of s in order.
func formFields(s string) []formField {
	var fields []formField
	textarea := -1 // the next text token is the content of fields[textarea]
	eachToken(s, func(z *xhtml.Tokenizer, tt xhtml.TokenType, raw []byte, off int) bool {
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			if tt == xhtml.TextToken && textarea >= 0 {
				lead := len(raw) - len(bytes.TrimLeft(raw, " \t\r\n\f"))
				trail := len(raw) - len(bytes.TrimRight(raw, " \t\r\n\f"))
				if lead < len(raw) {
					fields[textarea].value = [2]int{off + lead, off + len(raw) - trail}
				}
			}
			textarea = -1
			return false
		}
		textarea = -1
		ti, attrs, value, selfClosing := readFieldTag(tt, raw)
		switch {
		case ti.name == "input":
			fd := formField{f: secretField(ti.name, func(n string) string { return attrs[n] })}
			if value[1] > value[0] {
				fd.value = [2]int{off + value[0], off + value[1]}
			}
			fields = append(fields, fd)
		case ti.name == "textarea":
			fields = append(fields, formField{f: secretField(ti.name, func(n string) string { return attrs[n] })})
			if !selfClosing {
				textarea = len(fields) - 1
			}
		}
		return ti.raw && selfClosing
	})
	return fields
}

// readFieldTag reads a start tag: the attributes that tell a secret field, unescaped, and the
// range of its value attribute in raw ([-1,-1] for none).
func readFieldTag(tt xhtml.TokenType, raw []byte) (ti *tagInfo, attrs map[string]string, value [2]int, selfClosing bool) {
	attrs = map[string]string{}
	value = [2]int{-1, -1}
	var last []byte
	sc, ti := scanTag(raw)
	for {
		key, val, start, end, ok := sc.next()
		if !ok {
			break
		}
		last = val
		k := strings.ToLower(string(key))
		if k == "value" {
			value = [2]int{start, end}
			attrs[k] = unescape(string(val))
		} else if slices.Contains(secretAttrs, k) {
			attrs[k] = unescape(string(val))
		}
	}
	return ti, attrs, value, tt == xhtml.SelfClosingTagToken || slashID(raw, last)
}
