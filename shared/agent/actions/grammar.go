package actions

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Grammar is a checked action table with its parser and prompt text. The package functions use
// the grammar of the built-in table; a narrower one (say, without a server tool that is not
// configured) is NewGrammar over a filtered table: the model is then neither offered nor
// allowed the missing actions.
type Grammar struct {
	specs  []Spec
	byName map[string]*Spec
}

var std = mustGrammar(table)

// Parse parses an action string with the built-in table (see Grammar.Parse).
func Parse(s string) (Action, error) { return std.Parse(s) }

// New builds an action of the built-in table from Go values (see Grammar.New).
func New(name string, args ...any) (Action, error) { return std.New(name, args...) }

// PromptText is the grammar section of the system prompt for the built-in table (see Grammar.PromptText).
func PromptText() string { return std.PromptText() }

// NewGrammar checks a table and builds its grammar. The table is copied.
func NewGrammar(specs []Spec) (*Grammar, error) {
	g := &Grammar{byName: make(map[string]*Spec, len(specs))}
	for _, s := range specs {
		if err := checkSpec(s); err != nil {
			return nil, fmt.Errorf("action %q: %w", s.Name, err)
		}
		if _, dup := g.byName[s.Name]; dup {
			return nil, fmt.Errorf("action %q: listed twice", s.Name)
		}
		g.byName[s.Name] = nil
		g.specs = append(g.specs, cloneSpec(s))
	}
	if len(g.specs) == 0 {
		return nil, errors.New("the table has no actions")
	}
	for i := range g.specs {
		g.byName[g.specs[i].Name] = &g.specs[i]
	}
	return g, nil
}

func mustGrammar(specs []Spec) *Grammar {
	g, err := NewGrammar(specs)
	if err != nil {
		panic("actions: " + err.Error())
	}
	return g
}

// Specs is a copy of the grammar's table, in order.
func (g *Grammar) Specs() []Spec {
	out := make([]Spec, len(g.specs))
	for i, s := range g.specs {
		out[i] = cloneSpec(s)
	}
	return out
}

func cloneSpec(s Spec) Spec {
	s.Args = slices.Clone(s.Args)
	for i := range s.Args {
		s.Args[i].Choices = slices.Clone(s.Args[i].Choices)
	}
	return s
}

// checkSpec refuses table entries the parser or the prompt could not honour, so that a mistake
// in the table fails at start-up (the built-in table is checked in init) rather than at a request.
func checkSpec(s Spec) error {
	if !isIdentifier(s.Name) {
		return errors.New("the name must be an ASCII identifier")
	}
	if s.Handler != DOM && s.Handler != Server {
		return fmt.Errorf("unknown handler %q", s.Handler)
	}
	switch s.Effect {
	case Continues, Completes, Fails, AsksUser:
	default:
		return fmt.Errorf("unknown effect %q", s.Effect)
	}
	if strings.TrimSpace(s.Description) == "" || strings.ContainsAny(s.Description, "\r\n") {
		return errors.New("the description must be one non-empty line")
	}
	seen := map[string]bool{}
	for i, a := range s.Args {
		if err := checkArgSpec(a); err != nil {
			return fmt.Errorf("argument %q: %w", a.Name, err)
		}
		if seen[a.Name] {
			return fmt.Errorf("argument %q: listed twice", a.Name)
		}
		seen[a.Name] = true
		if i > 0 && s.Args[i-1].Optional && !a.Optional {
			return fmt.Errorf("argument %q: a required argument cannot follow an optional one", a.Name)
		}
	}
	return nil
}

func checkArgSpec(a ArgSpec) error {
	if !isIdentifier(a.Name) {
		return errors.New("the name must be an ASCII identifier")
	}
	if a.Kind < KindElement || a.Kind > KindSeconds {
		return fmt.Errorf("unknown kind %d", a.Kind)
	}
	if (a.Kind == KindChoice) != (len(a.Choices) > 0) {
		return errors.New("choices are required for, and only for, KindChoice")
	}
	if a.Kind != KindSeconds && (a.Min != 0 || a.Max != 0) {
		return errors.New("Min and Max are only for KindSeconds")
	}
	if a.AllowEmpty && a.Kind != KindText {
		return errors.New("AllowEmpty is only for KindText")
	}
	for i, c := range a.Choices {
		if c == "" || !utf8.ValidString(c) || textLen(c) > MaxTextLen {
			return fmt.Errorf("choice %q is not a valid string", c)
		}
		if slices.Contains(a.Choices[:i], c) {
			return fmt.Errorf("choice %q listed twice", c)
		}
	}
	if a.Kind == KindSeconds {
		if a.Min <= 0 || a.Max < a.Min || a.Min%time.Millisecond != 0 || a.Max%time.Millisecond != 0 {
			return errors.New("seconds need 0 < Min <= Max, in whole milliseconds")
		}
	}
	return nil
}

func isIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

func isIdentByte(c byte) bool {
	return c == '_' || isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
