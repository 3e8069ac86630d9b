package actions

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOneMoreServerAction shows that a server-side tool is one table entry: with it, the parser
// accepts the action, knows who handles it, and the prompt offers it, with no other code changed.
func TestOneMoreServerAction(t *testing.T) {
	g, err := NewGrammar(append(slices.Clone(table),
		Spec{Name: "lookupOrder", Args: []ArgSpec{text("query")}, Handler: Server, Description: "Look an order up; the result comes with the next step."},
	))
	if err != nil {
		t.Fatal(err)
	}
	a, err := g.Parse(`lookupOrder("RMA-1234")`)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if a.Handler() != Server || a.Terminal() {
		t.Errorf("Handler() = %q, Terminal() = %v; want SERVER, false", a.Handler(), a.Terminal())
	}
	if q, _ := a.Text(); q != "RMA-1234" {
		t.Errorf("Text() = %q, want the query", q)
	}
	if got, want := a.String(), `lookupOrder("RMA-1234")`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if !strings.Contains(g.PromptText(), `- lookupOrder("query") — Look an order up; the result comes with the next step.`) {
		t.Errorf("PromptText() does not offer lookupOrder:\n%s", g.PromptText())
	}
	if _, err := g.Parse("lookupOrder()"); err == nil || !strings.Contains(err.Error(), "lookupOrder expects 1 argument (query), got 0") {
		t.Errorf("Parse(lookupOrder()) error = %v, want the argument count", err)
	}
	// The other actions are untouched, and the built-in grammar does not know the new one.
	if _, err := g.Parse(`setValue(1, "x")`); err != nil {
		t.Errorf("Parse(setValue) in the extended grammar: %v", err)
	}
	if _, err := Parse(`lookupOrder("x")`); err == nil {
		t.Error("the built-in grammar accepts lookupOrder")
	}
}

// TestNarrowerGrammar shows a grammar without an action: neither offered nor accepted.
func TestNarrowerGrammar(t *testing.T) {
	g, err := NewGrammar(slices.DeleteFunc(Specs(), func(s Spec) bool { return s.Name == "askUser" }))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(g.PromptText(), "askUser") {
		t.Error("PromptText() offers askUser, which the grammar lacks")
	}
	if _, err := g.Parse(`askUser("x")`); err == nil || !strings.Contains(err.Error(), `unknown action "askUser"`) {
		t.Errorf("Parse(askUser) error = %v, want unknown action", err)
	}
}

func TestSpecsIsACopy(t *testing.T) {
	specs := Specs()
	specs[0].Name = "changed"
	specs[1].Args[0].Kind = KindText
	for i := range specs {
		for j := range specs[i].Args {
			if len(specs[i].Args[j].Choices) > 0 {
				specs[i].Args[j].Choices[0] = "changed"
			}
		}
	}
	for _, in := range []string{"click(1)", `setValue(1, "x")`, `scroll("up")`, `pressKey("Enter")`} {
		if _, err := Parse(in); err != nil {
			t.Errorf("after changing Specs(), Parse(%s): %v", in, err)
		}
	}
}

func TestNewGrammarRejectsBadTables(t *testing.T) {
	ok := Spec{Name: "act", Handler: DOM, Description: "Do it."}
	with := func(change func(*Spec)) []Spec {
		s := ok
		change(&s)
		return []Spec{s}
	}
	arg := func(a ArgSpec) []Spec { return with(func(s *Spec) { s.Args = []ArgSpec{a} }) }
	tests := []struct {
		name  string
		specs []Spec
		want  string
	}{
		{"empty table", nil, "no actions"},
		{"empty name", with(func(s *Spec) { s.Name = "" }), "ASCII identifier"},
		{"name with a space", with(func(s *Spec) { s.Name = "do it" }), "ASCII identifier"},
		{"name starting with a digit", with(func(s *Spec) { s.Name = "1act" }), "ASCII identifier"},
		{"duplicate", []Spec{ok, ok}, "listed twice"},
		{"no handler", with(func(s *Spec) { s.Handler = "" }), "unknown handler"},
		{"unknown effect", with(func(s *Spec) { s.Effect = "paused" }), "unknown effect"},
		{"no description", with(func(s *Spec) { s.Description = " " }), "one non-empty line"},
		{"two-line description", with(func(s *Spec) { s.Description = "a\nb" }), "one non-empty line"},
		{"argument without name", arg(ArgSpec{Kind: KindText}), "ASCII identifier"},
		{"argument without kind", arg(ArgSpec{Name: "x"}), "unknown kind"},
		{"choice without choices", arg(ArgSpec{Name: "x", Kind: KindChoice}), "choices are required"},
		{"choices on text", arg(ArgSpec{Name: "x", Kind: KindText, Choices: []string{"a"}}), "choices are required"},
		{"empty choice", arg(ArgSpec{Name: "x", Kind: KindChoice, Choices: []string{""}}), "not a valid string"},
		{"duplicate choice", arg(ArgSpec{Name: "x", Kind: KindChoice, Choices: []string{"a", "a"}}), "listed twice"},
		{"seconds without bounds", arg(ArgSpec{Name: "x", Kind: KindSeconds}), "0 < Min <= Max"},
		{"seconds with Max < Min", arg(ArgSpec{Name: "x", Kind: KindSeconds, Min: time.Second, Max: time.Millisecond}), "0 < Min <= Max"},
		{"seconds below a millisecond", arg(ArgSpec{Name: "x", Kind: KindSeconds, Min: time.Microsecond, Max: time.Second}), "whole milliseconds"},
		{"bounds on text", arg(ArgSpec{Name: "x", Kind: KindText, Max: time.Second}), "only for KindSeconds"},
		{"AllowEmpty on a URL", arg(ArgSpec{Name: "x", Kind: KindURL, AllowEmpty: true}), "only for KindText"},
		{"duplicate argument", with(func(s *Spec) { s.Args = []ArgSpec{text("x"), text("x")} }), "listed twice"},
		{"required after optional", with(func(s *Spec) { s.Args = []ArgSpec{optional(text("x")), text("y")} }), "cannot follow an optional one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewGrammar(tt.specs)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewGrammar error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestTableNamesAreUniqueIgnoringCase(t *testing.T) {
	// The "did you mean" hint of unknown names relies on it.
	seen := map[string]string{}
	for _, s := range Specs() {
		k := strings.ToLower(s.Name)
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s differ only in case", s.Name, other)
		}
		seen[k] = s.Name
	}
}
