package oracle

import (
	"regexp"
	"strings"
)

// Page is the page part of a prompt, read line by line. It understands both interact page views
// (a list of elements then text lines; or an indented outline with elements inline) and the run
// API's page (visible text, then one line per interactive element).
type Page struct {
	Lines    []Line
	Elements []Element
	// Cut says the server left part of the page out.
	Cut bool
}

// Line is one line of the page with its elements.
type Line struct {
	Indent int
	// Text is the line with its elements' syntax replaced by their texts.
	Text     string
	Raw      string
	Elements []int // indexes into Page.Elements
}

// Element is an element the agent can act on.
type Element struct {
	ID    string // "12" (interact) or "agent-12" (run API)
	Tag   string
	Attrs map[string]string
	Text  string
	Line  int
	New   bool
}

// Label is what names the element: its text, aria-label, placeholder, value of a button, title.
func (e Element) Label() string {
	for _, v := range []string{e.Text, e.Attrs["aria-label"], e.Attrs["ariaLabel"], e.Attrs["placeholder"], e.Attrs["title"], e.Attrs["alt"]} {
		if v != "" {
			return v
		}
	}
	if t := e.Attrs["type"]; e.Tag == "input" && (t == "submit" || t == "button") {
		return e.Attrs["value"]
	}
	return ""
}

// Value is the element's current value (an input's value, a textarea's text, a select's choice).
func (e Element) Value() string {
	if v, ok := e.Attrs["value"]; ok {
		return v
	}
	if e.Tag == "textarea" {
		return e.Text
	}
	return ""
}

// Field reports whether the element takes text or a choice.
func (e Element) Field() bool {
	switch e.Tag {
	case "textarea", "select":
		return true
	case "input":
		switch e.Attrs["type"] {
		case "submit", "button", "reset", "image", "checkbox", "radio", "hidden":
			return false
		}
		return true
	}
	r := e.Attrs["role"]
	return r == "textbox" || r == "searchbox" || r == "combobox"
}

var (
	// elementStart is `[12] tag` or `*[12] tag` or `[agent-3] tag`.
	elementStart = regexp.MustCompile(`(\*?)\[((?:agent-)?\d+)\]\s+([a-z][a-z0-9-]*)`)
	// attrToken is one attribute (name=value, name="value", a bare boolean) or the quoted text.
	attrToken = regexp.MustCompile(`^\s+(?:([a-zA-Z][a-zA-Z-]*)=("(?:[^"\\]|\\.)*"|[^\s"\[|]+)|("(?:[^"\\]|\\.)*")|(checked|selected|disabled|readonly|required))`)
	cutNote   = regexp.MustCompile(`(?i)omitted to fit|left out|^…$|^\.\.\.$`)
)

func readPage(s string, api API) Page {
	var pg Page
	for _, raw := range strings.Split(s, "\n") {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		if cutNote.MatchString(strings.TrimSpace(raw)) {
			pg.Cut = true
		}
		if api == Run {
			if v, ok := strings.CutPrefix(raw, "Visible Text: "); ok {
				raw = v
			} else if strings.HasPrefix(raw, "URL: ") || strings.HasPrefix(raw, "Title: ") || strings.HasPrefix(raw, "Interactive Elements") {
				continue
			}
		}
		pg.addLine(raw)
	}
	return pg
}

func (pg *Page) addLine(raw string) {
	ln := Line{Indent: len(raw) - len(strings.TrimLeft(raw, " ")), Raw: raw}
	idx := len(pg.Lines)
	var text strings.Builder
	rest := raw
	for {
		m := elementStart.FindStringSubmatchIndex(rest)
		if m == nil {
			text.WriteString(rest)
			break
		}
		text.WriteString(rest[:m[0]])
		e := Element{New: m[3] > m[2], ID: rest[m[4]:m[5]], Tag: rest[m[6]:m[7]], Attrs: map[string]string{}, Line: idx}
		rest = rest[m[1]:]
		for {
			a := attrToken.FindStringSubmatch(rest)
			if a == nil {
				break
			}
			switch {
			case a[1] != "":
				v := a[2]
				if strings.HasPrefix(v, `"`) {
					v = unquote(v[1 : len(v)-1])
				}
				if a[1] == "text" {
					e.Text = v
				} else {
					e.Attrs[a[1]] = v
				}
			case a[3] != "":
				e.Text = unquote(a[3][1 : len(a[3])-1])
			default:
				e.Attrs[a[4]] = ""
			}
			rest = rest[len(a[0]):]
			if a[3] != "" {
				break // the quoted text ends the element
			}
		}
		text.WriteString(e.Text)
		ln.Elements = append(ln.Elements, len(pg.Elements))
		pg.Elements = append(pg.Elements, e)
	}
	ln.Text = strings.TrimSpace(text.String())
	pg.Lines = append(pg.Lines, ln)
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Button finds a clickable element (button, link, role button, submit input) whose label
// contains want, preferring an exact match.
func (pg Page) Button(want string) (Element, bool) {
	return pg.find(want, func(e Element) bool { return !e.Field() && e.Tag != "label" })
}

// Link finds a link whose text is want, preferring an exact match.
func (pg Page) Link(want string) (Element, bool) {
	return pg.find(want, func(e Element) bool { return e.Tag == "a" || e.Attrs["role"] == "link" })
}

func (pg Page) find(want string, ok func(Element) bool) (Element, bool) {
	w := norm(want)
	var partial *Element
	for i, e := range pg.Elements {
		if !ok(e) {
			continue
		}
		l := norm(e.Label())
		if l == w {
			return e, true
		}
		if partial == nil && strings.Contains(l, w) {
			partial = &pg.Elements[i]
		}
	}
	if partial != nil {
		return *partial, true
	}
	return Element{}, false
}

// FieldLabelled finds the field a user would take for the one labelled want: its own label
// (aria-label, placeholder) names it, or a label right before it does — on the same line, or
// as the element just before it in the list of elements.
func (pg Page) FieldLabelled(want string) (Element, bool) {
	w := norm(want)
	for _, e := range pg.Elements {
		if e.Field() && (norm(e.Attrs["aria-label"]) == w || norm(e.Attrs["ariaLabel"]) == w || norm(e.Attrs["placeholder"]) == w) {
			return e, true
		}
	}
	for i, e := range pg.Elements {
		if !e.Field() {
			continue
		}
		// A label element just before the field.
		if i > 0 && pg.Elements[i-1].Tag == "label" && strings.HasPrefix(norm(pg.Elements[i-1].Text), w) {
			return e, true
		}
		// Label text just before the field on its line ("Email [4] input …").
		line := pg.Lines[e.Line]
		before := line.Raw[:strings.Index(line.Raw, "["+e.ID+"]")]
		if cut := strings.LastIndex(before, "|"); cut >= 0 {
			before = before[cut+1:]
		}
		b := norm(elementStart.ReplaceAllString(before, ""))
		if b != "" && (b == w || strings.HasSuffix(b, w) || strings.HasPrefix(b, w) && len(b) <= len(w)+2) {
			return e, true
		}
	}
	return Element{}, false
}

// HasText reports whether some line of the page contains s (case-insensitive).
func (pg Page) HasText(s string) bool {
	w := norm(s)
	for _, l := range pg.Lines {
		if strings.Contains(norm(l.Text), w) {
			return true
		}
	}
	return false
}

// LineIs reports whether some line of the page reads exactly s, as a heading does (a leading
// heading marker such as "h1" or "#" aside).
func (pg Page) LineIs(s string) bool {
	w := norm(s)
	for _, l := range pg.Lines {
		if len(l.Elements) > 0 {
			continue // a link or button named s is not a heading
		}
		t := headingMarker.ReplaceAllString(norm(l.Text), "")
		if strings.Trim(t, ` :"`) == w {
			return true
		}
	}
	return false
}

var headingMarker = regexp.MustCompile(`^(?:#+|h[1-6]|heading)\s+`)

// maxFactGap is how far after its subject a fact may start on a line.
const maxFactGap = 80

// FactNear finds the first match of re that belongs to subject: on the subject's own line
// (starting within maxFactGap characters after it) or, in an outline, in the same indented
// block under a container line. A fact on another line of a flat page does not count.
func (pg Page) FactNear(subject string, re *regexp.Regexp) (string, bool) {
	s := norm(subject)
	for i, l := range pg.Lines {
		t := norm(l.Text)
		at := strings.Index(t, s)
		if at < 0 {
			continue
		}
		after := t[at+len(s):]
		if m := re.FindStringIndex(after); m != nil && m[0] <= maxFactGap {
			return after[m[0]:m[1]], true
		}
		for _, j := range pg.block(i) {
			if m := re.FindString(norm(pg.Lines[j].Text)); m != "" {
				return m, true
			}
		}
	}
	return "", false
}

// block is the other lines of line i's indented block: its children when it is a container
// header ("…:"), else its siblings under the same header. Lines at the left margin form no block.
func (pg Page) block(i int) []int {
	l := pg.Lines[i]
	var out []int
	if strings.HasSuffix(strings.TrimSpace(l.Raw), ":") {
		for j := i + 1; j < len(pg.Lines) && pg.Lines[j].Indent > l.Indent; j++ {
			out = append(out, j)
		}
		return out
	}
	if l.Indent == 0 {
		return nil
	}
	start := i
	for start > 0 && pg.Lines[start-1].Indent == l.Indent {
		start--
	}
	for j := start; j < len(pg.Lines) && pg.Lines[j].Indent == l.Indent; j++ {
		if j != i && !strings.HasSuffix(strings.TrimSpace(pg.Lines[j].Raw), ":") {
			out = append(out, j)
		}
	}
	return out
}

// Cell reads a table: the cell under column header of the row that contains rowKey, where cells
// are separated by " | " on the row's line.
func (pg Page) Cell(rowKey, column string) (string, bool) {
	col := -1
	var width int
	for _, l := range pg.Lines {
		cells := splitCells(l.Text)
		for k, c := range cells {
			if norm(c) == norm(column) {
				col, width = k, len(cells)
			}
		}
		if col >= 0 {
			break
		}
	}
	if col < 0 {
		return "", false
	}
	for _, l := range pg.Lines {
		cells := splitCells(l.Text)
		if len(cells) != width {
			continue
		}
		for _, c := range cells {
			if norm(c) == norm(rowKey) {
				return strings.TrimSpace(cells[col]), true
			}
		}
	}
	return "", false
}

func splitCells(s string) []string {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "-"))
	if !strings.Contains(s, "|") {
		return nil
	}
	parts := strings.Split(s, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
