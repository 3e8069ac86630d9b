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
	t.Parallel()
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
	t.Parallel()
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

// TestDetectLoopSeesThePageChange: the same action repeated while each one changes the page is
// progress; repeated on a page that stays the same it is a loop.
func TestDetectLoopSeesThePageChange(t *testing.T) {
	t.Parallel()
	list := func(items ...string) *Snapshot {
		p := &Snapshot{URL: "https://shop.example/socks", Title: "Socks"}
		for i, it := range items {
			p.Elements = append(p.Elements, Element{ID: "agent-" + strconv.Itoa(i), Tag: "a", Text: it})
		}
		p.VisibleText = strings.Join(items, " ")
		return p
	}
	scrolled := []*Snapshot{list("wool", "cotton"), list("silk", "bamboo"), list("linen", "cashmere")}
	withPages := func(pages []*Snapshot, calls ...string) []Entry {
		seq := steps(calls...)
		for i := range seq {
			seq[i].PageHash = fingerprint(pages[i])
		}
		return seq
	}
	cases := []struct {
		name  string
		seq   []Entry
		loop  bool
		about string
	}{
		{"three scrolls, each revealing new items", withPages(scrolled, "scroll", "scroll", "scroll"), false, ""},
		{"three scrolls on a page that stays the same", withPages([]*Snapshot{scrolled[0], scrolled[0], scrolled[0]}, "scroll", "scroll", "scroll"), true, "3 times in a row"},
		{"three clicks on the same link while the page moves on", withPages(scrolled, "click agent-0", "click agent-0", "click agent-0"), false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, loop := detectLoop(tc.seq[:len(tc.seq)-1], tc.seq[len(tc.seq)-1])
			if loop != tc.loop || !strings.Contains(msg, tc.about) {
				t.Errorf("detectLoop() = %q, %v; want loop %v about %q", msg, loop, tc.loop, tc.about)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := &Snapshot{URL: "https://a.example/", Title: "A", VisibleText: "Hello", Timestamp: 1,
		Elements: []Element{{ID: "agent-1", Tag: "input", Value: "x", BBox: &BBox{Y: 10}}}}
	same := *base
	same.Timestamp, same.Elements = 2, []Element{{ID: "agent-1", Tag: "input", Value: "typed", BBox: &BBox{Y: 10}}}
	if fingerprint(base) != fingerprint(&same) {
		t.Error("a new timestamp or a field's typed value changed the fingerprint; want it the same page")
	}
	for name, change := range map[string]func(*Snapshot){
		"url":      func(p *Snapshot) { p.URL = "https://a.example/2" },
		"title":    func(p *Snapshot) { p.Title = "B" },
		"text":     func(p *Snapshot) { p.VisibleText = "Hello again" },
		"element":  func(p *Snapshot) { p.Elements = append(p.Elements, Element{ID: "agent-2", Tag: "a"}) },
		"position": func(p *Snapshot) { p.Elements = []Element{{ID: "agent-1", Tag: "input", BBox: &BBox{Y: -500}}} },
	} {
		other := *base
		change(&other)
		if fingerprint(&other) == fingerprint(base) {
			t.Errorf("a change of %s kept the fingerprint", name)
		}
	}
	if fingerprint(nil) != "" {
		t.Error("fingerprint(nil) is not empty")
	}
}
