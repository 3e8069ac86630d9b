package runs

import (
	"fmt"
	"strings"
)

// maxOptionsShown bounds the options of a select the prompt lists; the rest are counted, so the
// model knows the list goes on.
const maxOptionsShown = 60

// writeElement writes one element of the page for the prompt: its id, tag and attributes, then
// what a client may add (label, states, options, context). alike is "2/3" for the second of
// three elements that would otherwise read the same, "" for a unique one: without a context it
// is all that tells them apart.
func writeElement(b *strings.Builder, e Element, alike string) {
	fmt.Fprintf(b, "[%s] %s", clean(e.ID), clean(e.Tag))
	for _, a := range []struct{ name, value string }{
		{"role", e.Role}, {"type", e.Type}, {"label", e.Label}, {"text", e.Text}, {"ariaLabel", e.AriaLabel},
		{"placeholder", e.Placeholder}, {"name", e.Name}, {"value", e.Value}, {"href", e.Href},
	} {
		if a.value != "" {
			fmt.Fprintf(b, " %s=%q", a.name, clean(a.value))
		}
	}
	for _, st := range []struct {
		v       *bool
		on, off string
	}{
		{e.Checked, "checked", "unchecked"}, {e.Selected, "selected", "not selected"},
		{e.Pressed, "pressed", "not pressed"}, {e.Expanded, "expanded", "collapsed"},
	} {
		switch {
		case st.v == nil:
		case *st.v:
			b.WriteString(" " + st.on)
		default:
			b.WriteString(" " + st.off)
		}
	}
	if e.Disabled {
		b.WriteString(" disabled")
	}
	if len(e.Options) > 0 {
		shown := e.Options[:min(len(e.Options), maxOptionsShown)]
		quoted := make([]string, len(shown))
		for i, o := range shown {
			quoted[i] = fmt.Sprintf("%q", clean(o))
		}
		fmt.Fprintf(b, " options=[%s", strings.Join(quoted, ", "))
		if rest := len(e.Options) - len(shown); rest > 0 {
			fmt.Fprintf(b, ", … %d more", rest)
		}
		b.WriteString("]")
	}
	if e.Context != "" {
		fmt.Fprintf(b, " in=%q", clean(e.Context))
	} else if alike != "" {
		b.WriteString(" alike=" + alike)
	}
	b.WriteString("\n")
}

// alikeLabels numbers the elements that read the same (tag, type, text and labels) and carry no
// context: "1/3", "2/3", "3/3"; "" for the others.
func alikeLabels(els []Element) []string {
	key := func(e Element) string {
		return strings.Join([]string{e.Tag, e.Type, e.Role, e.Text, e.AriaLabel, e.Label, e.Name, e.Placeholder}, "\x00")
	}
	total := map[string]int{}
	for _, e := range els {
		if e.Context == "" {
			total[key(e)]++
		}
	}
	out := make([]string, len(els))
	seen := map[string]int{}
	for i, e := range els {
		k := key(e)
		if e.Context != "" || total[k] < 2 {
			continue
		}
		seen[k]++
		out[i] = fmt.Sprintf("%d/%d", seen[k], total[k])
	}
	return out
}
