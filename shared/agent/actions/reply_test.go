package actions

import (
	"strings"
	"testing"
)

func TestParseReplyValid(t *testing.T) {
	tests := []struct {
		name    string
		reply   string
		thought string
		action  string
	}{
		{"plain", "<Thought>Click login.</Thought><Action>click(12)</Action>", "Click login.", "click(12)"},
		{"newlines and spaces", "\n  <Thought>\n  Click login.\n  </Thought>\n\n<Action>\n click(12) \n</Action>\n", "Click login.", "click(12)"},
		{"lower-case tags", "<thought>t</thought><action>finish()</action>", "t", "finish()"},
		{"mixed-case tags", "<THOUGHT>t</Thought><aCtIoN>finish()</ACTION>", "t", "finish()"},
		{"fenced reply", "```xml\n<Thought>t</Thought>\n<Action>click(1)</Action>\n```", "t", "click(1)"},
		{"fenced, no language", "```\n<Thought>t</Thought><Action>click(1)</Action>\n```", "t", "click(1)"},
		{"text around", "Sure! Here is my answer.\n<Thought>t</Thought>\n<Action>click(1)</Action>\nHope this helps.", "t", "click(1)"},
		{"action first", "<Action>click(1)</Action><Thought>t</Thought>", "t", "click(1)"},
		{"no thought", "<Action>finish()</Action>", "", "finish()"},
		{"empty thought", "<Thought></Thought><Action>finish()</Action>", "", "finish()"},
		{"multi-line thought", "<Thought>line 1\nline 2</Thought><Action>finish()</Action>", "line 1\nline 2", "finish()"},
		{"backticks around the action", "<Thought>t</Thought><Action>`click(1)`</Action>", "t", "click(1)"},
		{"fence inside the action", "<Thought>t</Thought><Action>\n```\nclick(1)\n```\n</Action>", "t", "click(1)"},
		{"fence with language inside the action", "<Action>```js\nsetValue(1, \"a`b\")\n```</Action>", "", "setValue(1, \"a`b\")"},
		{"backticks inside a string stay", "<Action>setValue(1, \"`x`\")</Action>", "", "setValue(1, \"`x`\")"},
		{"angle brackets in the thought", "<Thought>if a < b then <b>bold</b></Thought><Action>click(1)</Action>", "if a < b then <b>bold</b>", "click(1)"},
		{"tag-like text that is not a tag", "<Thought>see <Actionz> and <Action > and </Act></Thought><Action>click(1)</Action>", "see <Actionz> and <Action > and </Act>", "click(1)"},
		{"strings with angle brackets", `<Action>setValue(1, "<b>hi</b>")</Action>`, "", `setValue(1, "<b>hi</b>")`},
		{"action that is not valid is still returned", "<Action>tap(1)</Action>", "", "tap(1)"},
		{"unicode", "<Thought>Ich klicke auf „Anmelden“.</Thought><Action>click(3)</Action>", "Ich klicke auf „Anmelden“.", "click(3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			thought, action, err := ParseReply(tt.reply)
			if err != nil {
				t.Fatalf("ParseReply(%q): %v", tt.reply, err)
			}
			if thought != tt.thought || action != tt.action {
				t.Errorf("ParseReply(%q) = %q, %q; want %q, %q", tt.reply, thought, action, tt.thought, tt.action)
			}
		})
	}
}

func TestParseReplyInvalid(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  []string
	}{
		{"empty", "", []string{"no <Action>…</Action> block", "<Thought>your reasoning</Thought><Action>one action</Action>"}},
		{"bare action", "click(12)", []string{"no <Action>…</Action> block"}},
		{"thought only", "<Thought>I will click.</Thought>", []string{"no <Action>…</Action> block"}},
		{"two actions", "<Thought>t</Thought><Action>click(1)</Action><Action>click(2)</Action>", []string{"2 <Action> blocks", "exactly one action"}},
		{"two actions, different case", "<Action>click(1)</Action>\n<action>finish()</action>", []string{"2 <Action> blocks"}},
		{"two thoughts", "<Thought>a</Thought><Thought>b</Thought><Action>click(1)</Action>", []string{"2 <Thought> blocks"}},
		{"unclosed action", "<Thought>t</Thought><Action>click(1)", []string{"<Action> is not closed", "</Action>"}},
		{"unclosed thought", "<Thought>t<Action>click(1)</Action>", []string{"<Thought> is not closed"}},
		{"closing without opening", "<Thought>t</Thought>click(1)</Action>", []string{"</Action> without an opening <Action>"}},
		{"stray closing thought", "</Thought><Action>click(1)</Action>", []string{"</Thought> without an opening <Thought>"}},
		{"action inside the thought", "<Thought>I'll do <Action>click(1)</Action></Thought><Action>click(2)</Action>", []string{"the <Thought> block contains <Action>"}},
		{"thought inside the action", "<Action><Thought>t</Thought>click(1)</Action>", []string{"the <Action> block contains <Thought>"}},
		{"nested action", "<Action>click(1)<action>click(2)</Action>", []string{"the <Action> block contains <action>"}},
		{"empty action", "<Thought>t</Thought><Action>   </Action>", []string{"the <Action> block is empty"}},
		{"empty fenced action", "<Thought>t</Thought><Action>```\n```</Action>", []string{"the <Action> block is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			thought, action, err := ParseReply(tt.reply)
			if err == nil {
				t.Fatalf("ParseReply(%q) = %q, %q, want an error", tt.reply, thought, action)
			}
			if thought != "" || action != "" {
				t.Errorf("ParseReply(%q) returned %q, %q with its error, want empty", tt.reply, thought, action)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseReply(%q) error %q does not contain %q", tt.reply, err, w)
				}
			}
		})
	}
}

func TestParseReplyThenParse(t *testing.T) {
	// The two steps the engine takes on a model reply.
	reply := "```\n<Thought>The search box is empty, so I type the product name.</Thought>\n<Action>setValue(7, \"Lenovo \\\"ThinkPad\\\" X1\")</Action>\n```"
	thought, s, err := ParseReply(reply)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := a.Text(); thought == "" || text != `Lenovo "ThinkPad" X1` {
		t.Errorf("got thought %q, text %q", thought, text)
	}
}
