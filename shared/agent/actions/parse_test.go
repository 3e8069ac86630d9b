package actions

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		in        string
		name      string
		args      []any
		canonical string
	}{
		{"click(12)", "click", []any{12}, "click(12)"},
		{"click(0)", "click", []any{0}, "click(0)"},
		{"  click( 12 )\n", "click", []any{12}, "click(12)"},
		{"click(999999999)", "click", []any{999999999}, "click(999999999)"},
		{`setValue(4, "x")`, "setValue", []any{4, "x"}, `setValue(4, "x")`},
		{"setValue(4,\"x\")", "setValue", []any{4, "x"}, `setValue(4, "x")`},
		{"setValue(\n  4,\n  \"x\"\n)", "setValue", []any{4, "x"}, `setValue(4, "x")`},
		{`setValue(4, "")`, "setValue", []any{4, ""}, `setValue(4, "")`},
		{`setValue(4, "say \"hi\"\\ok\nnext\ttab")`, "setValue", []any{4, "say \"hi\"\\ok\nnext\ttab"}, `setValue(4, "say \"hi\"\\ok\nnext\ttab")`},
		{`setValue(4, "a\/b\b\f\r")`, "setValue", []any{4, "a/b\b\f\r"}, `setValue(4, "a/b\u0008\u000c\r")`},
		{`setValue(4, "caf\u00e9 \u00E9 \ud83d\ude00")`, "setValue", []any{4, "café é 😀"}, `setValue(4, "café é 😀")`},
		{`setValue(4, "日本語 (x), y")`, "setValue", []any{4, "日本語 (x), y"}, `setValue(4, "日本語 (x), y")`},
		{`setValue(4, "\u0000")`, "setValue", []any{4, "\x00"}, `setValue(4, "\u0000")`},
		{`search("red shoes")`, "search", []any{"red shoes"}, `search("red shoes")`},
		{`scroll("up")`, "scroll", []any{"up"}, `scroll("up")`},
		{`scroll("down")`, "scroll", []any{"down"}, `scroll("down")`},
		{`navigate("https://example.com/a?b=c#d")`, "navigate", []any{"https://example.com/a?b=c#d"}, `navigate("https://example.com/a?b=c#d")`},
		{`navigate("http://localhost:8080")`, "navigate", []any{"http://localhost:8080"}, `navigate("http://localhost:8080")`},
		{`navigate("HTTPS://Example.com")`, "navigate", []any{"HTTPS://Example.com"}, `navigate("HTTPS://Example.com")`},
		{`pressKey("Enter")`, "pressKey", []any{"Enter"}, `pressKey("Enter")`},
		{`pressKey("ArrowDown")`, "pressKey", []any{"ArrowDown"}, `pressKey("ArrowDown")`},
		{`pressKey("Escape")`, "pressKey", []any{"Escape"}, `pressKey("Escape")`},
		{"dismissDialog()", "dismissDialog", nil, "dismissDialog()"},
		{"dismissDialog( )", "dismissDialog", nil, "dismissDialog()"},
		{"wait(2)", "wait", []any{2 * time.Second}, "wait(2)"},
		{"wait(0.5)", "wait", []any{500 * time.Millisecond}, "wait(0.5)"},
		{"wait(1.25)", "wait", []any{1250 * time.Millisecond}, "wait(1.25)"},
		{"wait(1.500)", "wait", []any{1500 * time.Millisecond}, "wait(1.5)"},
		{"wait(2.0)", "wait", []any{2 * time.Second}, "wait(2)"},
		{"wait(30)", "wait", []any{30 * time.Second}, "wait(30)"},
		{"wait(0.501)", "wait", []any{501 * time.Millisecond}, "wait(0.501)"},
		{`askUser("Which account?")`, "askUser", []any{"Which account?"}, `askUser("Which account?")`},
		{`verifySuccess("The order page shows 'Thank you'")`, "verifySuccess", []any{"The order page shows 'Thank you'"}, `verifySuccess("The order page shows 'Thank you'")`},
		{"finish()", "finish", nil, "finish()"},
		{`finish( "The price is $10.99" )`, "finish", []any{"The price is $10.99"}, `finish("The price is $10.99")`},
		{"fail()", "fail", nil, "fail()"},
		{`fail("No such product")`, "fail", []any{"No such product"}, `fail("No such product")`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if a.Name() != tt.name {
				t.Errorf("Name() = %q, want %q", a.Name(), tt.name)
			}
			if !reflect.DeepEqual(a.Args(), tt.args) {
				t.Errorf("Args() = %#v, want %#v", a.Args(), tt.args)
			}
			if got := a.String(); got != tt.canonical {
				t.Errorf("String() = %s, want %s", got, tt.canonical)
			}
			back, err := Parse(a.String())
			if err != nil || !reflect.DeepEqual(back, a) {
				t.Errorf("Parse(String()) = %v, %v; want %v", back, err, a)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		in   string
		want []string // parts of the error message
	}{
		// Shape of the whole action.
		{"", []string{"empty"}},
		{"   \n ", []string{"empty"}},
		{"12", []string{"starts with its name"}},
		{"(12)", []string{"starts with its name"}},
		{"finish", []string{"finish needs parentheses", "finish()"}},
		{"click 12", []string{`expected "(" after click`, "click(id)"}},
		{"click[12]", []string{`expected "(" after click`}},
		{"click(12", []string{`missing its closing ")"`}},
		{"click(12) finish()", []string{`unexpected text after the closing ")" of click`, `"finish()"`, "exactly one action"}},
		{"click(12);", []string{`unexpected text`, `";"`}},
		{"click(12)\nclick(13)", []string{"unexpected text", "click(13)"}},
		// Names.
		{"Click(12)", []string{`unknown action "Click"`, "did you mean click?", "case-sensitive"}},
		{"setvalue(1, \"x\")", []string{"did you mean setValue?"}},
		{"set_value(1, \"x\")", []string{"did you mean setValue?"}},
		{"press_key(\"Enter\")", []string{"did you mean pressKey?"}},
		{"tap(1)", []string{`unknown action "tap"`, "the actions are click, setValue"}},
		{"openTab(\"x\")", []string{`unknown action "openTab"`}},
		// Argument counts.
		{"click()", []string{"click expects 1 argument (element id), got 0", "write click(id)"}},
		{"click(1, 2)", []string{"click expects 1 argument (element id), got 2"}},
		{"setValue(4)", []string{"setValue expects 2 arguments (element id, text), got 1", `write setValue(id, "text")`}},
		{`setValue(4, "a", "b")`, []string{"setValue expects 2 arguments (element id, text), got 3"}},
		{"search()", []string{"search expects 1 argument (query), got 0"}},
		{"scroll()", []string{"scroll expects 1 argument (direction), got 0", `scroll("up"|"down")`}},
		{"navigate()", []string{"navigate expects 1 argument (url), got 0"}},
		{"pressKey()", []string{"pressKey expects 1 argument (key), got 0"}},
		{"dismissDialog(1)", []string{"dismissDialog takes no arguments, got 1", "write dismissDialog()"}},
		{"wait()", []string{"wait expects 1 argument (seconds), got 0", "wait(seconds)"}},
		{"askUser()", []string{"askUser expects 1 argument (question), got 0"}},
		{"verifySuccess()", []string{"verifySuccess expects 1 argument (description), got 0"}},
		{`finish("a", "b")`, []string{"finish expects at most 1 argument (result), got 2", `write finish("result") or finish()`}},
		{`fail("a", "b")`, []string{"fail expects at most 1 argument (reason), got 2", `write fail("reason") or fail()`}},
		// Separators.
		{"click(1,)", []string{`remove the comma before the closing ")"`}},
		{`setValue(,"x")`, []string{"argument 1 of setValue is empty"}},
		{`setValue(1,,"x")`, []string{"argument 2 of setValue is empty"}},
		{`setValue(1 "x")`, []string{"setValue expects 2 arguments (element id, text), got 1"}},
		{`click(1 2)`, []string{"element id must be a whole number like 12, got 1 2"}},
		{`setValue(1, "x" "y")`, []string{`expected "," or ")" after argument 2 of setValue`, `"\"y\")"`}},
		{`setValue(1, "x" + "y")`, []string{`expected "," or ")" after argument 2 of setValue`}},
		// Element ids.
		{"click(-1)", []string{"element id must be a whole number like 12, got -1"}},
		{"click(+1)", []string{"element id must be a whole number"}},
		{"click(1.5)", []string{"element id must be a whole number", "1.5"}},
		{"click(1e3)", []string{"element id must be a whole number"}},
		{"click(0x1F)", []string{"element id must be a whole number"}},
		{"click(12abc)", []string{"element id must be a whole number", "12abc"}},
		{"click(abc)", []string{"element id must be a whole number"}},
		{"click(007)", []string{"without leading zeros"}},
		{"click(1000000000)", []string{"too large"}},
		{"click(99999999999999999999999)", []string{"too large"}},
		{`click("12")`, []string{"element id must be a number without quotes", `"12"`}},
		{"click(١٢)", []string{"element id must be a whole number"}},
		{`setValue("4", "x")`, []string{"without quotes"}},
		// Strings.
		{`search(red shoes)`, []string{`query must be a string in double quotes, like "query"; got red shoes`}},
		{`search('red shoes')`, []string{"double quotes, not single quotes", `search("query")`}},
		{`search('it''s, fine')`, []string{"not single quotes"}},
		{`search(“shoes”)`, []string{"query must be a string in double quotes"}},
		{`search(useVariable("x") + " price")`, []string{`got useVariable("x") + " price"`}},
		{`setValue(42, useVariable("ceoName"))`, []string{`text must be a string in double quotes`, `useVariable("ceoName")`}},
		{`search("shoes)`, []string{"search: the string", "is not closed"}},
		{`search("a\x")`, []string{`invalid escape \x`, `\" \\ \/`}},
		{`search("a\'")`, []string{`invalid escape \'`}},
		{`search("a\`, []string{`lone \`}},
		{`search("a\u12")`, []string{`\u must be followed by 4 hex digits`}},
		{`search("a\u12g4")`, []string{`\u must be followed by 4 hex digits`}},
		{`search("\ud83d")`, []string{"lone surrogate"}},
		{`search("\ud83dx")`, []string{"lone surrogate"}},
		{`search("\ud83d\u0041")`, []string{"lone surrogate"}},
		{`search("\ude00")`, []string{"lone surrogate"}},
		{"search(\"a\nb\")", []string{"raw control character U+000A", `\n`}},
		{"search(\"a\tb\")", []string{"raw control character U+0009"}},
		{"search(\"\xff\")", []string{"invalid UTF-8"}},
		{`search("")`, []string{"search: query must not be empty"}},
		{`askUser("")`, []string{"askUser: question must not be empty"}},
		{`verifySuccess("")`, []string{"verifySuccess: description must not be empty"}},
		{`fail("")`, []string{"fail: reason must not be empty"}},
		{`search("` + strings.Repeat("é", MaxTextLen+1) + `")`, []string{"10001 characters long", "at most 10000"}},
		// Choices.
		{`scroll(up)`, []string{`direction must be one of "up", "down", in double quotes; got up`}},
		{`scroll("left")`, []string{`direction must be one of "up", "down"; got "left"`}},
		{`scroll("Up")`, []string{`unknown direction "Up"; did you mean "up"?`}},
		{`scroll(1)`, []string{`direction must be one of "up", "down", in double quotes`}},
		{`pressKey("enter")`, []string{`unknown key "enter"; did you mean "Enter"?`}},
		{`pressKey("Ctrl+A")`, []string{`key must be one of "Enter", "Tab"`}},
		{`pressKey(Enter)`, []string{"in double quotes"}},
		// URLs.
		{`navigate("example.com")`, []string{"absolute http or https URL", `"example.com"`}},
		{`navigate("/path")`, []string{"absolute http or https URL"}},
		{`navigate("javascript:alert(1)")`, []string{"absolute http or https URL"}},
		{`navigate("ftp://example.com")`, []string{"absolute http or https URL"}},
		{`navigate("https://")`, []string{"absolute http or https URL"}},
		{`navigate("https:example.com")`, []string{"absolute http or https URL"}},
		{`navigate("https://exa mple.com")`, []string{"must not contain spaces", "%20"}},
		{`navigate("https://example.com/%zz")`, []string{"absolute http or https URL"}},
		{`navigate(https://example.com)`, []string{"url must be a string in double quotes"}},
		// Seconds.
		{"wait(0)", []string{"seconds must be from 0.5 to 30, got 0"}},
		{"wait(0.4)", []string{"seconds must be from 0.5 to 30, got 0.4"}},
		{"wait(31)", []string{"from 0.5 to 30, got 31"}},
		{"wait(30.001)", []string{"from 0.5 to 30, got 30.001"}},
		{"wait(12345678901)", []string{"from 0.5 to 30, got 12345678901"}},
		{"wait(-1)", []string{"seconds must be a number like 2 or 1.5, got -1"}},
		{"wait(.5)", []string{"a number like 2 or 1.5"}},
		{"wait(1.)", []string{"a number like 2 or 1.5"}},
		{"wait(1.2.3)", []string{"a number like 2 or 1.5"}},
		{"wait(1e1)", []string{"a number like 2 or 1.5"}},
		{"wait(02)", []string{"without leading zeros"}},
		{"wait(1.2345)", []string{"at most 3 decimal places, got 1.2345"}},
		{`wait("2")`, []string{"must be a number without quotes", `"2"`}},
		{"wait(2s)", []string{"a number like 2 or 1.5, got 2s"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.in, a)
			}
			if a.Name() != "" {
				t.Errorf("Parse(%q) returned %v with its error, want the zero Action", tt.in, a)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q) error %q does not contain %q", tt.in, err, w)
				}
			}
		})
	}
}

func TestEveryActionHasValidAndInvalidCases(t *testing.T) {
	// Keeps the tables above honest when an action is added to the table.
	for _, s := range Specs() {
		if _, err := Parse(sample(s)); err != nil {
			t.Errorf("the sample of %s does not parse: %v", s.Name, err)
		}
		if len(s.Args) > 0 {
			if _, err := Parse(s.Name + "()"); err == nil && !s.Args[0].Optional {
				t.Errorf("%s() parses though %s has a required argument", s.Name, s.Name)
			}
		} else if _, err := Parse(s.Name + "(1)"); err == nil {
			t.Errorf("%s(1) parses though %s takes no arguments", s.Name, s.Name)
		}
	}
}

// sample writes a valid use of an action with every argument.
func sample(s Spec) string {
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		switch a.Kind {
		case KindElement:
			args[i] = "7"
		case KindSeconds:
			args[i] = formatSeconds(a.Min)
		case KindURL:
			args[i] = `"https://example.com/"`
		case KindChoice:
			args[i] = `"` + a.Choices[len(a.Choices)-1] + `"`
		default:
			args[i] = `"some text"`
		}
	}
	return s.Name + "(" + strings.Join(args, ", ") + ")"
}

func TestStringEscapingRoundTrip(t *testing.T) {
	texts := []string{
		"",
		"plain",
		`"`,
		`\`,
		`\"`,
		`"\\"`,
		"line1\nline2\r\nline3",
		"tab\there",
		"\x00\x01\x1f\x7f",
		"\b\f",
		"/slash/",
		"é ü 日本 😀 \u2028 \u2029 \ufeff",
		"\ufffd",
		"unicode escape look-alike \\u0041",
		"close) and comma, \"quoted\" (paren",
		"<Action>click(1)</Action>",
		strings.Repeat("x", MaxTextLen),
	}
	for _, text := range texts {
		a, err := New("setValue", 3, text)
		if err != nil {
			t.Fatalf("New(setValue, 3, %q): %v", text, err)
		}
		s := a.String()
		back, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%s): %v", s, err)
		}
		if got, _ := back.Text(); got != text {
			t.Errorf("round trip of %q through %s gave %q", text, s, got)
		}
		if !reflect.DeepEqual(back, a) {
			t.Errorf("Parse(%s) = %#v, want %#v", s, back, a)
		}
		if strings.ContainsAny(s, "\n\r\t\x00") {
			t.Errorf("String() = %q holds a raw control character", s)
		}
	}
}

func TestAccessors(t *testing.T) {
	tests := []struct {
		in       string
		handler  Handler
		effect   Effect
		terminal bool
		id       int
		hasID    bool
		text     string
		hasText  bool
	}{
		{"click(12)", DOM, Continues, false, 12, true, "", false},
		{`setValue(4, "x")`, DOM, Continues, false, 4, true, "x", true},
		{`setValue(4, "")`, DOM, Continues, false, 4, true, "", true},
		{`search("q")`, DOM, Continues, false, 0, false, "q", true},
		{`scroll("down")`, DOM, Continues, false, 0, false, "down", true},
		{`navigate("https://a.b")`, DOM, Continues, false, 0, false, "https://a.b", true},
		{`pressKey("Tab")`, DOM, Continues, false, 0, false, "Tab", true},
		{"dismissDialog()", DOM, Continues, false, 0, false, "", false},
		{"wait(3)", DOM, Continues, false, 0, false, "", false},
		{`askUser("Which?")`, DOM, AsksUser, false, 0, false, "Which?", true},
		{`verifySuccess("Saved")`, DOM, Continues, false, 0, false, "Saved", true},
		{"finish()", DOM, Completes, true, 0, false, "", false},
		{"fail()", DOM, Fails, true, 0, false, "", false},
		{`fail("why")`, DOM, Fails, true, 0, false, "why", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if a.Handler() != tt.handler {
				t.Errorf("Handler() = %q, want %q", a.Handler(), tt.handler)
			}
			if a.Effect() != tt.effect {
				t.Errorf("Effect() = %q, want %q", a.Effect(), tt.effect)
			}
			if a.Terminal() != tt.terminal {
				t.Errorf("Terminal() = %v, want %v", a.Terminal(), tt.terminal)
			}
			if id, ok := a.ElementID(); id != tt.id || ok != tt.hasID {
				t.Errorf("ElementID() = %d, %v; want %d, %v", id, ok, tt.id, tt.hasID)
			}
			if text, ok := a.Text(); text != tt.text || ok != tt.hasText {
				t.Errorf("Text() = %q, %v; want %q, %v", text, ok, tt.text, tt.hasText)
			}
		})
	}
}

func TestEffectStatuses(t *testing.T) {
	// The engine stores these as task statuses; they are the contract's words.
	for effect, want := range map[Effect]string{Completes: "completed", Fails: "failed", AsksUser: "needs_user_input", Continues: ""} {
		if string(effect) != want {
			t.Errorf("effect %q, want %q", effect, want)
		}
	}
}

func TestArgsIsACopy(t *testing.T) {
	a, _ := Parse("click(1)")
	a.Args()[0] = 99
	if got := a.String(); got != "click(1)" {
		t.Errorf("after changing Args(), String() = %s, want click(1)", got)
	}
}

func TestZeroAction(t *testing.T) {
	var a Action
	if a.Name() != "" || a.String() != "" || a.Handler() != "" || a.Effect() != Continues || a.Terminal() || a.Args() != nil {
		t.Errorf("zero Action = %q %q %q %q %v %v, want all empty", a.Name(), a.String(), a.Handler(), a.Effect(), a.Terminal(), a.Args())
	}
	if err := Validate(a, nil); err != nil {
		t.Errorf("Validate(zero) = %v, want nil", err)
	}
}

func TestNew(t *testing.T) {
	valid := []struct {
		name string
		args []any
		want string
	}{
		{"click", []any{5}, "click(5)"},
		{"setValue", []any{5, "a\"b"}, `setValue(5, "a\"b")`},
		{"wait", []any{1500 * time.Millisecond}, "wait(1.5)"},
		{"fail", []any{"could not log in"}, `fail("could not log in")`},
		{"fail", nil, "fail()"},
		{"verifySuccess", []any{"The form was sent"}, `verifySuccess("The form was sent")`},
		{"finish", nil, "finish()"},
	}
	for _, tt := range valid {
		t.Run(tt.want, func(t *testing.T) {
			a, err := New(tt.name, tt.args...)
			if err != nil {
				t.Fatalf("New(%s, %v): %v", tt.name, tt.args, err)
			}
			if a.String() != tt.want {
				t.Errorf("String() = %s, want %s", a, tt.want)
			}
			parsed, err := Parse(tt.want)
			if err != nil || !reflect.DeepEqual(parsed, a) {
				t.Errorf("Parse(%s) = %#v, %v; want %#v", tt.want, parsed, err, a)
			}
		})
	}
	invalid := []struct {
		name string
		args []any
		want string
	}{
		{"nope", nil, `unknown action "nope"`},
		{"click", nil, "click expects 1 argument"},
		{"click", []any{"5"}, "must be a Go int, got string"},
		{"click", []any{-1}, "out of range"},
		{"click", []any{MaxElementID + 1}, "out of range"},
		{"setValue", []any{1, 2}, "must be a Go string, got int"},
		{"setValue", []any{1, "\xff"}, "not valid UTF-8"},
		{"wait", []any{2}, "must be a Go time.Duration, got int"},
		{"wait", []any{time.Hour}, "from 0.5 to 30"},
		{"wait", []any{1500 * time.Microsecond}, "at most 3 decimal places"},
		{"wait", []any{-time.Second}, "from 0.5 to 30"},
		{"navigate", []any{"file:///etc/passwd"}, "absolute http or https URL"},
		{"scroll", []any{"sideways"}, `must be one of "up", "down"`},
		{"fail", []any{""}, "must not be empty"},
	}
	for _, tt := range invalid {
		t.Run(tt.want, func(t *testing.T) {
			a, err := New(tt.name, tt.args...)
			if err == nil {
				t.Fatalf("New(%s, %v) = %v, want an error", tt.name, tt.args, a)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New(%s, %v) error %q does not contain %q", tt.name, tt.args, err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	page := map[int]bool{0: true, 4: true, 12: true}
	has := func(id int) bool { return page[id] }
	tests := []struct {
		in   string
		want string // "" for valid
	}{
		{"click(12)", ""},
		{"click(0)", ""},
		{`setValue(4, "x")`, ""},
		{"click(13)", "click: element 13 is not on the current page"},
		{`setValue(5, "x")`, "setValue: element 5 is not on the current page"},
		{`search("q")`, ""},
		{`navigate("https://example.com")`, ""},
		{"finish()", ""},
		{"wait(1)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			err = Validate(a, has)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate(%s) = %v, want nil", tt.in, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate(%s) = %v, want an error containing %q", tt.in, err, tt.want)
			}
		})
	}
	click, _ := Parse("click(1)")
	if err := Validate(click, nil); err == nil {
		t.Error("Validate(click(1), nil) = nil, want an error: a page without elements has no id 1")
	}
	finish, _ := Parse("finish()")
	if err := Validate(finish, nil); err != nil {
		t.Errorf("Validate(finish(), nil) = %v, want nil", err)
	}
}
