package runs

import "fmt"

// Loop detection (PROXY_SERVER_ARCHITECTURE.md §4.2). An action is compared at two grains: the
// whole call (tool and every argument), and the tool with its target only (the element, URL or
// key), since typing ever different texts into one field is as stuck as typing the same one.
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
	top, topKey := 0, ""
	for _, e := range window {
		k := e.targetKey()
		counts[k]++
		if counts[k] > top {
			top, topKey = counts[k], k
		}
	}
	switch {
	case top >= cycleCount:
		return fmt.Sprintf("the same action (%s) was chosen %d times in the last %d steps", topKey, top, cycleWindow), true
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

func describe(e Entry) string {
	if e.Tool != nil {
		return shorten(e.Tool.String(), 120)
	}
	return e.Action
}
