package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Loop detection (PROXY_SERVER_ARCHITECTURE.md §4.2). An action is compared at two grains: the
// whole call (tool and every argument), and the tool with its target only (the element, URL or
// key), since typing ever different texts into one field is as stuck as typing the same one.
// Either way it is the action on a page: the same action repeated while the page changes each
// time (scrolling through a long list, "next" through results) is progress, not a loop.
const (
	// Pattern 1: the same call this many times in a row (observe, observe, observe).
	repeatRun = 3
	// Pattern 2: the same tool on the same target in each of this many last steps.
	stuckRun = 4
	// Pattern 3: within this many last steps, one action this often, or only two taking turns
	// (click, type, click, type, click, type, click).
	cycleWindow = 7
	cycleCount  = 5
)

// detectLoop reports whether adding next to history (oldest first) completes a loop, and
// describes it. next's StepNumber is the step it would be.
func detectLoop(history []Entry, next Entry) (string, bool) {
	seq := append(append([]Entry(nil), history...), next)
	if n := trailing(seq, Entry.signature); n >= repeatRun {
		return fmt.Sprintf("the same action (%s) was chosen %d times in a row", describe(next), n), true
	}
	if n := trailing(seq, Entry.targetKey); n >= stuckRun {
		return fmt.Sprintf("%s was used on the same target %d times in a row", next.toolName(), n), true
	}
	if len(seq) < cycleWindow {
		return "", false
	}
	window := seq[len(seq)-cycleWindow:]
	counts := map[string]int{}
	top, topEntry := 0, Entry{}
	for _, e := range window {
		k := e.targetKey()
		counts[k]++
		if counts[k] > top {
			top, topEntry = counts[k], e
		}
	}
	switch {
	case top >= cycleCount:
		return fmt.Sprintf("the same action (%s) was chosen %d times in the last %d steps", describe(topEntry), top, cycleWindow), true
	case len(counts) <= 2:
		return fmt.Sprintf("the last %d steps only alternated between the same two actions", cycleWindow), true
	}
	return "", false
}

// trailing counts how many entries at the end of seq share the last one's key.
func trailing(seq []Entry, key func(Entry) string) int {
	last := key(seq[len(seq)-1])
	n := 0
	for i := len(seq) - 1; i >= 0 && key(seq[i]) == last; i-- {
		n++
	}
	return n
}

// fingerprint identifies what a page shows: its URL, title, text and elements with their
// positions and states (checked, pressed, a select's options, …). Element values are left out, because typing changes only the field's own value and
// typing ever different texts into one field is still stuck. "" for no page.
func fingerprint(p *Snapshot) string {
	if p == nil {
		return ""
	}
	type shown struct {
		ID, Tag, Role, Text, AriaLabel, Placeholder, Type, Href, Name, Label, Context string
		Disabled                                                                      bool
		Checked, Selected, Pressed, Expanded                                          *bool
		Options                                                                       []string
		BBox                                                                          *BBox
	}
	els := make([]shown, len(p.Elements))
	for i, e := range p.Elements {
		els[i] = shown{e.ID, e.Tag, e.Role, e.Text, e.AriaLabel, e.Placeholder, e.Type, e.Href, e.Name, e.Label, e.Context,
			e.Disabled, e.Checked, e.Selected, e.Pressed, e.Expanded, e.Options, e.BBox}
	}
	// Marshalling plain strings, bools and numbers cannot fail.
	b, _ := json.Marshal(struct {
		URL, Title, VisibleText string
		Elements                []shown
	}{p.URL, p.Title, p.VisibleText, els})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

func describe(e Entry) string {
	if e.Tool != nil {
		return shorten(e.Tool.String(), 120)
	}
	return e.Action
}
