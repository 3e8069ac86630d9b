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

// FuzzParseReply checks that no reply makes ParseReply panic, and that whatever it accepts is a
// non-empty action and a thought free of reply tags, which read back unchanged when written in the
// canonical reply format.
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
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		thought, action, err := ParseReply(reply)
		if err != nil {
			if thought != "" || action != "" {
				t.Fatalf("ParseReply(%q) returned %q, %q with error %v", reply, thought, action, err)
			}
			return
		}
		if action == "" {
			t.Fatalf("ParseReply(%q) accepted an empty action", reply)
		}
		if tag := firstTag(thought + "\x00" + action); tag != "" {
			t.Fatalf("ParseReply(%q) returned a tag %s in %q, %q", reply, tag, thought, action)
		}
		if strings.TrimSpace(thought) != thought || strings.TrimSpace(action) != action {
			t.Fatalf("ParseReply(%q) = %q, %q, not trimmed", reply, thought, action)
		}
		canonical := "<Thought>" + thought + "</Thought>\n<Action>" + action + "</Action>"
		t2, a2, err := ParseReply(canonical)
		if err != nil || t2 != thought || a2 != action {
			t.Fatalf("ParseReply(%q) = %q, %q, %v; want %q, %q", canonical, t2, a2, err, thought, action)
		}
	})
}
