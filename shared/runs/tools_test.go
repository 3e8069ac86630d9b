package runs

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestToolTable: every tool of the table is in the prompt exactly as the parser reads it. The
// prompt's own example of each tool's arguments parses, and the call the client receives has
// exactly the tool's arguments, which render back in its String form.
func TestToolTable(t *testing.T) {
	t.Parallel()
	page := &Snapshot{URL: "https://a.example/", Elements: []Element{{ID: "agent-1", Tag: "a"}, {ID: "agent-2", Tag: "input"}}}
	prompt := toolsPrompt()
	for _, spec := range tools {
		if !strings.Contains(prompt, "- "+spec.name+": "+spec.description) {
			t.Errorf("the prompt lacks %s:\n%s", spec.name, prompt)
		}
		args := strings.ReplaceAll(strings.ReplaceAll(spec.usage(), `"https://..."`, `"https://a.example/next"`), `"..."`, `"text"`)
		reply, err := ParseReply(`{"type":"tool_call","tool":{"name":"`+spec.name+`","arguments":`+args+`}}`, page)
		if err != nil {
			t.Errorf("%s: the prompt's example %s does not parse: %v", spec.name, args, err)
			continue
		}
		switch spec.reply {
		case ReplyAskUser, ReplyFinal:
			if reply.Type != spec.reply || reply.Question+reply.Answer != "text" {
				t.Errorf("%s = %+v, want a %s reply with its text", spec.name, reply, spec.reply)
			}
			continue
		}
		var want []string
		for _, a := range spec.args {
			if !a.optional {
				want = append(want, a.name)
			}
		}
		got := make([]string, 0)
		for k := range reply.Tool.Parameters() {
			got = append(got, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s parameters = %v, want %v", spec.name, got, want)
		}
		params, _ := json.Marshal(reply.Tool.Parameters())
		if s := reply.Tool.String(); len(want) > 0 && !strings.HasPrefix(s, spec.name+" {") || len(want) == 0 && s != spec.name {
			t.Errorf("%s String() = %q (parameters %s)", spec.name, s, params)
		}
	}
	if got := toolNames(); got != "observe, navigate, click, type, scroll, press, ask_user or finish" {
		t.Errorf("toolNames() = %q", got)
	}
}

func TestToolTarget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool Tool
		want string
	}{
		{Tool{Name: ToolClick, ID: "agent-1"}, "agent-1"},
		{Tool{Name: ToolType, ID: "agent-2", Text: "x"}, "agent-2"},
		{Tool{Name: ToolNavigate, URL: "https://a.example/"}, "https://a.example/"},
		{Tool{Name: ToolPress, Key: "Enter"}, "Enter"},
		{Tool{Name: ToolScroll, DeltaY: 300}, ""},
		{Tool{Name: ToolObserve}, ""},
	} {
		if got := tc.tool.target(); got != tc.want {
			t.Errorf("%s target() = %q, want %q", tc.tool, got, tc.want)
		}
	}
}
