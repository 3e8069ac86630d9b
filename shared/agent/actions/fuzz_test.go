package actions

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, that an accepted action renders to a canonical
// form that parses back to the same action (and renders the same again), and that an action the
// table accepts validates against any page without panicking.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"click(12)", " click( 0 ) ", "click(007)", "click(-1)", "click(1e3)", "click(99999999999999999999)",
		`setValue(4, "x")`, `setValue(4, "")`, `setValue(4, "a\"b\\c\n\t\/\b\f\r\u00e9\ud83d\ude00")`,
		`setValue(4, "\ud83d")`, `setValue(4, "\u12")`, "setValue(4, \"a\nb\")", "setValue(4, \"\xff\")",
		`setValue(4, 'x')`, `setValue(4 "x")`, `setValue(4, "x",)`, `setValue(4, useVariable("k"))`,
		`search("q")`, `search("unterminated`, `search("a\`, `scroll("up")`, `scroll(down)`, `scroll("Up")`,
		`navigate("https://example.com/a?b#c")`, `navigate("javascript:alert(1)")`, `navigate("https://exa mple.com")`,
		`pressKey("Enter")`, `pressKey("enter")`, "dismissDialog()", "dismissDialog(1)",
		"wait(2)", "wait(0.5)", "wait(1.250)", "wait(30.001)", "wait(.5)", "wait(1.)", "wait(01)", `wait("2")`,
		`askUser("Which one?")`, `verifySuccess("Saved")`, "finish()", "finish", "fail()", `fail("why")`, `fail("a", "b")`,
		"", "(", ")", "click(", "click)", "click((1))", "click(1))", "Click(1)", "set_value(1, \"x\")", "click(1) finish()",
		"\x00", "é(1)", `x("` + strings.Repeat(`\\`, 10) + `")`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		a, err := Parse(in)
		if err != nil {
			if a.Name() != "" {
				t.Fatalf("Parse(%q) returned %v with error %v", in, a, err)
			}
			if err.Error() == "" {
				t.Fatalf("Parse(%q) returned an empty error", in)
			}
			return
		}
		s := a.String()
		back, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) accepted, but its String() %q does not parse: %v", in, s, err)
		}
		if !reflect.DeepEqual(back, a) {
			t.Fatalf("Parse(%q) = %#v, but Parse(String()) = %#v", in, a, back)
		}
		if back.String() != s {
			t.Fatalf("String() is not stable: %q then %q", s, back.String())
		}
		_ = Validate(a, func(id int) bool { return id%2 == 0 })
	})
}

// FuzzParseReply checks that no reply makes ParseReplySections panic, and that whatever it accepts
// is a non-empty action (the first of its batch) and a thought free of reply tags, which read back
// unchanged when written in the canonical reply format (<Actions> for a batch).
func FuzzParseReply(f *testing.F) {
	for _, seed := range []string{
		"<Thought>t</Thought><Action>click(1)</Action>",
		"<thought>t</thought>\n<action>finish()</action>",
		"```xml\n<Thought>t</Thought>\n<Action>click(1)</Action>\n```",
		"<Action>```\nclick(1)\n```</Action>",
		"<Action>``click(1)``</Action>",
		"<Action>`````</Action>",
		"<Action>```js\nx\n```</Action>",
		"<Action>click(1)</Action><Action>click(2)</Action>",
		"<Thought><Action>click(1)</Action></Thought>",
		"<Thought>a</Thought><Thought>b</Thought><Action>x</Action>",
		"<Action>click(1)", "</Action>", "<Action></Action>", "<Action>", "<", "</", "<Action",
		"<Thought>a < b <</Thought><Action>x</Action>",
		"<Thought>é</Thought><Action>\xff</Action>",
		"<Actions>\nsetValue(1, \"a\")\n- click(2)\n</Actions>", "<Actions>1.-x\n`- y`</Actions>", "<Actions>\n\n</Actions>",
		"<Action>click(1)</Action><Actions>click(2)</Actions>", "<Actions>```\nclick(1)\n```</Actions>",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		r, err := ParseReplySections(reply)
		if err != nil {
			if r.Thought != "" || r.Action != "" || len(r.Actions) > 0 {
				t.Fatalf("ParseReplySections(%q) returned %+v with error %v", reply, r, err)
			}
			return
		}
		thought, action := r.Thought, r.Action
		if action == "" || len(r.Actions) == 0 || r.Actions[0] != action {
			t.Fatalf("ParseReplySections(%q) = %q, %q: want a non-empty action that is the first of the batch", reply, action, r.Actions)
		}
		for _, a := range append([]string{thought}, r.Actions...) {
			if tag := firstTag(a); tag != "" {
				t.Fatalf("ParseReplySections(%q) returned a tag %s in %q", reply, tag, a)
			}
			if strings.TrimSpace(a) != a {
				t.Fatalf("ParseReplySections(%q) returned %q, not trimmed", reply, a)
			}
		}
		canonical := "<Thought>" + thought + "</Thought>\n<Action>" + action + "</Action>"
		if len(r.Actions) > 1 {
			canonical = "<Thought>" + thought + "</Thought>\n<Actions>\n" + strings.Join(r.Actions, "\n") + "\n</Actions>"
		}
		back, err := ParseReplySections(canonical)
		if err != nil || back.Thought != thought || !reflect.DeepEqual(back.Actions, r.Actions) {
			t.Fatalf("ParseReplySections(%q) = %+v, %v; want %q, %q", canonical, back, err, thought, r.Actions)
		}
	})
}
