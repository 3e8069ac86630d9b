package runs

import (
	"fmt"
	"strings"
)

// maxOptionsShown bounds the options of a select the prompt lists; the rest are counted, so the
// model knows the list goes on.
const maxOptionsShown = 60

// writeElement writes one element of the page for the prompt: its id, tag and attributes, then
// what a client may add (label, states, options, context). Without a context, before is the page
// text just before a look-alike (textBefore), and alike is "2/3" for the second of three elements
// that would otherwise read the same, "" for a unique one.
func writeElement(b *strings.Builder, e Element, before, alike string) {
	fmt.Fprintf(b, "[%s] %s", clean(e.ID), clean(e.Tag))
	for _, a := range []struct{ name, value string }{
		{"role", e.Role}, {"type", e.Type}, {"label", e.Label}, {"text", e.Text}, {"ariaLabel", e.AriaLabel},
		{"placeholder", e.Placeholder}, {"name", e.Name}, {"value", e.Value}, {"href", e.Href},
	} {
		if a.value != "" {
			fmt.Fprintf(b, " %s=%q", a.name, clean(a.value))
		}
	}
	writeStates(b, e)
	writeOptions(b, e.Options)
	switch {
	case e.Context != "":
		fmt.Fprintf(b, " in=%q", clean(e.Context))
	case before != "":
		fmt.Fprintf(b, " after=%q", before)
	case alike != "":
		b.WriteString(" alike=" + alike)
	}
	b.WriteString("\n")
}

// writeStates writes the states the client reported (checked, pressed, …) and disabled.
func writeStates(b *strings.Builder, e Element) {
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
}

// writeOptions writes a select's options, the first maxOptionsShown of them and a count of the rest.
func writeOptions(b *strings.Builder, options []string) {
	if len(options) == 0 {
		return
	}
	shown := options[:min(len(options), maxOptionsShown)]
	quoted := make([]string, len(shown))
	for i, o := range shown {
		quoted[i] = fmt.Sprintf("%q", clean(o))
	}
	fmt.Fprintf(b, " options=[%s", strings.Join(quoted, ", "))
	if rest := len(options) - len(shown); rest > 0 {
		fmt.Fprintf(b, ", … %d more", rest)
	}
	b.WriteString("]")
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

// maxDerivedContext bounds the text shown before a look-alike element.
const maxDerivedContext = 160

// textBefore derives, for look-alike elements the client sent without a context, the page text
// just before each, which tells them apart ("Steel bottle · $19" before the first "Add to
// cart"). It is read only where it is a fact: the visible text must show the look-alikes' text
// as a line exactly once per element, so that those lines are the elements in document order;
// each element gets the lines since the previous one (as many before the first), and nothing is
// derived when two would read the same. Which card an element belongs to is not claimed (a card
// may put its button first), and states (checked, pressed, …), a label and a select's options
// are not derived at all: the snapshot's text has no positions, so which text names which field,
// or what state it is in, is not in it.
func textBefore(els []Element, visibleText string) []string {
	var lines []string
	for _, l := range strings.Split(visibleText, "\n") {
		if l = clean(l); l != "" {
			lines = append(lines, l)
		}
	}
	out := make([]string, len(els))
	for _, idx := range lookAlikes(els) {
		for n, b := range linesBefore(lines, clean(els[idx[0]].Text), len(idx)) {
			out[idx[n]] = b
		}
	}
	return out
}

// lookAlikes groups the indexes of the elements without a context that show the same text with
// the same tag, groups of two or more, in the order of their first element.
func lookAlikes(els []Element) [][]int {
	groups := map[string][]int{}
	var order []string
	for i, e := range els {
		if e.Context != "" || clean(e.Text) == "" {
			continue
		}
		k := e.Tag + "\x00" + clean(e.Text)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	var out [][]int
	for _, k := range order {
		if len(groups[k]) >= 2 {
			out = append(out, groups[k])
		}
	}
	return out
}

// linesBefore is, for each of the count look-alikes showing text, the lines since the previous
// one (as many before the first); nil unless the text is a line exactly count times, after at
// least one line, with a line between each, and the derived contexts all differ.
func linesBefore(lines []string, text string, count int) []string {
	var at []int
	for j, l := range lines {
		if l == text {
			at = append(at, j)
		}
	}
	if len(at) != count || at[0] == 0 {
		return nil
	}
	row := at[1] - at[0]
	for n := 2; n < len(at); n++ {
		row = min(row, at[n]-at[n-1])
	}
	if row < 2 {
		return nil
	}
	before := make([]string, len(at))
	seen := map[string]bool{}
	for n, j := range at {
		b := shorten(strings.Join(lines[max(0, j-row+1):j], " · "), maxDerivedContext)
		if seen[b] {
			return nil
		}
		seen[b], before[n] = true, b
	}
	return before
}
