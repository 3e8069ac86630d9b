package runs

import (
	"strconv"
	"strings"
	"testing"
)

// steps builds a history from calls written as "click a1", "type a2 text", "observe", "scroll 600".
func steps(calls ...string) []Entry {
	out := make([]Entry, len(calls))
	for i, c := range calls {
		f := strings.Fields(c)
		tool := Tool{Name: f[0]}
		switch tool.Name {
		case ToolClick:
			tool.ID = f[1]
		case ToolType:
			tool.ID, tool.Text = f[1], f[2]
		case ToolScroll:
			tool.DeltaY = 600
			if len(f) > 1 {
				tool.DeltaY, _ = strconv.ParseFloat(f[1], 64)
			}
		case ToolPress:
			tool.Key = f[1]
		case ToolNavigate:
			tool.URL = f[1]
		}
		out[i] = Entry{StepNumber: i + 1, Action: tool.Name, Tool: &tool}
	}
	return out
}

func TestDetectLoop(t *testing.T) {
	cases := []struct {
		name      string
		calls     []string
		wantInMsg string
	}{
		{"pattern 1: observe three times", []string{"observe", "observe", "observe"}, "3 times in a row"},
		{"pattern 1: the same click three times", []string{"scroll", "click a1", "click a1", "click a1"}, "3 times in a row"},
		{"pattern 2: one field typed four times", []string{"type a2 x", "type a2 y", "type a2 z", "type a2 w"}, "same target 4 times in a row"},
		{"pattern 2: scrolling by ever other amounts", []string{"click a1", "scroll 100", "scroll 200", "scroll 300", "scroll 400"}, "scroll was used on the same target 4 times"},
		{"pattern 3: one action 5 times in 7", []string{"click a1", "type a2 x", "click a1", "click a1", "scroll", "click a1", "click a1"}, "5 times in the last 7"},
		{"pattern 3: two actions taking turns", []string{"click a1", "type a2 x", "click a1", "type a2 y", "click a1", "type a2 z", "click a1"}, "alternated"},

		{"two observes", []string{"observe", "observe"}, "-"},
		{"three clicks on different elements", []string{"click a1", "click a2", "click a3"}, "-"},
		{"filling a form", []string{"type a1 x", "type a2 y", "type a3 z", "type a4 w", "click a5"}, "-"},
		{"varied work", []string{"observe", "click a1", "type a2 x", "click a3", "scroll", "click a1", "press Enter"}, "-"},
		{"two alternating actions, six steps", []string{"click a1", "type a2 x", "click a1", "type a2 y", "click a1", "type a2 z"}, "-"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seq := steps(tc.calls...)
			msg, loop := detectLoop(seq[:len(seq)-1], seq[len(seq)-1])
			if tc.wantInMsg == "-" {
				if loop {
					t.Errorf("detectLoop() = %q, want no loop", msg)
				}
				return
			}
			if !loop {
				t.Fatalf("detectLoop() found no loop, want one")
			}
			if !strings.Contains(msg, tc.wantInMsg) {
				t.Errorf("detectLoop() = %q, want it to contain %q", msg, tc.wantInMsg)
			}
		})
	}
}

func TestDetectLoopCountsHeldActions(t *testing.T) {
	// The gate held click a9, the user approved it, and the model chose it again.
	held := Tool{Name: ToolClick, ID: "a9"}
	history := []Entry{
		{StepNumber: 1, Action: ToolAskUser, Question: "Proceed?", Tool: &held},
		{StepNumber: 2, Action: ToolClick, Tool: &held},
	}
	if _, loop := detectLoop(history, Entry{StepNumber: 3, Action: ToolClick, Tool: &held}); !loop {
		t.Error("detectLoop() found no loop in a held, approved and repeated click")
	}
}
