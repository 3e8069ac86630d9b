package actions

import (
	"fmt"
	"strconv"
	"strings"
)

// inlineChoices is how many choices a placeholder lists inline ("up"|"down"); longer lists get a
// named placeholder and a note, so that the action's line stays readable.
const inlineChoices = 4

// PromptText is the grammar section of the system prompt: every action of the grammar as
// `name(args) — description`, with the limits of its arguments, and the rules for writing one.
// It lists exactly the actions Parse accepts.
func (g *Grammar) PromptText() string {
	var b strings.Builder
	b.WriteString("Actions (answer with exactly one):\n")
	kinds := map[Kind]bool{}
	for i := range g.specs {
		s := &g.specs[i]
		fmt.Fprintf(&b, "- %s — %s", forms(s), s.Description)
		var notes []string
		for _, a := range s.Args {
			kinds[a.Kind] = true
			if n := note(a); n != "" {
				notes = append(notes, n)
			}
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nHow to write an action:\n")
	if kinds[KindElement] {
		b.WriteString("- id is the number of an element of the current page, written without quotes; use only ids the page lists.\n")
	}
	if kinds[KindText] || kinds[KindURL] || kinds[KindChoice] {
		b.WriteString(`- Strings are in double quotes and escaped as in JSON: \" for a quote, \\ for a backslash, \n for a new line.` + "\n")
	}
	b.WriteString("- Names are case-sensitive. Write the action alone, with nothing after its closing parenthesis.\n")
	return b.String()
}

// forms is how an action is written: `setValue(id, "text")`, or with optional arguments both the
// full and the shortest form: `fail("reason") or fail()`.
func forms(s *Spec) string {
	full := usage(s.Name, s.Args)
	var required []ArgSpec
	for _, a := range s.Args {
		if !a.Optional {
			required = append(required, a)
		}
	}
	if len(required) == len(s.Args) {
		return full
	}
	return full + " or " + usage(s.Name, required)
}

func usage(name string, args []ArgSpec) string {
	ps := make([]string, len(args))
	for i, a := range args {
		ps[i] = placeholder(a)
	}
	return name + "(" + strings.Join(ps, ", ") + ")"
}

// placeholder stands for an argument in a usage: id, "text", "up"|"down", seconds.
func placeholder(a ArgSpec) string {
	switch {
	case a.Kind == KindElement || a.Kind == KindSeconds:
		return a.Name
	case a.Kind == KindChoice && len(a.Choices) <= inlineChoices:
		q := make([]string, len(a.Choices))
		for i, c := range a.Choices {
			q[i] = strconv.Quote(c)
		}
		return strings.Join(q, "|")
	}
	return `"` + a.Name + `"`
}

// note states an argument's limits that its placeholder does not show.
func note(a ArgSpec) string {
	switch a.Kind {
	case KindChoice:
		if len(a.Choices) > inlineChoices {
			return a.Name + ": one of " + quotedList(a.Choices)
		}
	case KindSeconds:
		return fmt.Sprintf("%s: a number from %s to %s, whole or decimal", a.Name, formatSeconds(a.Min), formatSeconds(a.Max))
	case KindURL:
		return a.Name + ": an absolute http or https URL"
	}
	return ""
}
