package runs

import (
	"fmt"
	"time"
)

// Efficiency is a self-reflection's verdict on recent progress.
type Efficiency string

// Efficiency levels.
const (
	EfficiencyLow    Efficiency = "low"
	EfficiencyMedium Efficiency = "medium"
	EfficiencyHigh   Efficiency = "high"
)

// Self-reflection (PROXY_SERVER_ARCHITECTURE.md §4.2): every reflectEvery steps the last
// reflectEvery actions are analysed; two low verdicts in a row stop the run unless its pages
// are changing. Progress is judged by what the actions reach, not by which tools they use: a
// form filled field by field uses one tool on ever new targets, and that is progress.
const reflectEvery = 5

// Reflection is one self-reflection.
type Reflection struct {
	// StepNumber is the step whose decision triggered it.
	StepNumber    int
	StepsAnalyzed int
	// Observes counts observe actions; Errors and Successes count the reported results of the
	// analysed actions (the newest has none yet).
	Observes  int
	Errors    int
	Successes int
	// ActionDiversity is the share of distinct tools among the analysed actions (0 to 1).
	ActionDiversity float64
	Efficiency      Efficiency
	Issues          []string
	Suggestions     []string
	ShouldAdjust    bool
	CreatedAt       time.Time
	// advancing is true when the analysed steps saw the page change; it is judged when the
	// reflection is made and not stored.
	advancing bool
}

// dueReflection reports whether the step numbered step is due a reflection: reflectEvery steps
// after the last one. Steps the server takes on an answer never reflect, so the next step the
// LLM decides catches up.
func dueReflection(step int, reflections []Reflection) bool {
	last := 0
	if n := len(reflections); n > 0 {
		last = reflections[n-1].StepNumber
	}
	return step-last >= reflectEvery
}

// analyzeProgress analyses the last reflectEvery actions of seq (oldest first, the new decision last).
// results[i] is the reported result of seq[i], nil when none has arrived.
func analyzeProgress(seq []Entry, results []*Result, now time.Time) Reflection {
	from := max(len(seq)-reflectEvery, 0)
	window := seq[from:]
	r := Reflection{StepNumber: seq[len(seq)-1].StepNumber, StepsAnalyzed: len(window), CreatedAt: now,
		Issues: []string{}, Suggestions: []string{}}
	r.count(window, results[from:])
	reported := r.Errors + r.Successes
	repeats, repeated := repeatsOnSamePage(window)
	if r.Errors >= 2 {
		r.flag(fmt.Sprintf("%d of the last %d reported actions failed", r.Errors, reported),
			"Do not repeat failing actions: choose another element or approach, or ask the user.")
	}
	if r.Observes >= 2 {
		r.flag(fmt.Sprintf("%d of the last %d steps only observed the page", r.Observes, len(window)),
			"Every step already shows the current page: act on it instead of observing again.")
	}
	if repeats >= 2 {
		r.flag(fmt.Sprintf("%s was chosen again on an unchanged page (%d repeats in the last %d steps)", repeated, repeats, len(window)),
			"Repeating it will not change the page: try another element or approach, or ask the user.")
	}
	switch {
	case r.Errors >= 2 && r.Errors*2 > reported, r.Observes >= 3, repeats >= 3:
		r.Efficiency = EfficiencyLow
	case len(r.Issues) == 0:
		r.Efficiency = EfficiencyHigh
	default:
		r.Efficiency = EfficiencyMedium
	}
	r.ShouldAdjust = len(r.Issues) > 0
	r.advancing = pagesChanged(window)
	return r
}

// count tallies the window's observes, successes and failures, and the variety of its tools.
// res[i] is the reported result of window[i], nil when none has arrived.
func (r *Reflection) count(window []Entry, res []*Result) {
	tools := map[string]bool{}
	for i, e := range window {
		tools[e.toolName()] = true
		if e.toolName() == ToolObserve {
			r.Observes++
		}
		switch {
		case res[i] == nil:
		case res[i].Success:
			r.Successes++
		default:
			r.Errors++
		}
	}
	r.ActionDiversity = float64(len(tools)) / float64(len(window))
}

// flag adds an issue and what the model should do about it.
func (r *Reflection) flag(issue, suggestion string) {
	r.Issues = append(r.Issues, issue)
	r.Suggestions = append(r.Suggestions, suggestion)
}

// repeatsOnSamePage counts the actions of window that repeat an earlier one's tool and target
// on the same page, and names the most repeated.
func repeatsOnSamePage(window []Entry) (int, string) {
	seen := map[string]int{}
	n, top, name := 0, 0, ""
	for _, e := range window {
		if e.toolName() == ToolObserve {
			continue // counted as observes
		}
		k := e.targetKey() // the tool, its target and the page
		seen[k]++
		if seen[k] > 1 {
			n++
		}
		if seen[k] > top {
			top, name = seen[k], describe(e)
		}
	}
	return n, name
}

// pagesChanged reports whether the pages of window's steps were not all the same: the run
// is getting somewhere, whatever the counts say.
func pagesChanged(window []Entry) bool {
	for _, e := range window[1:] {
		if e.PageHash != window[0].PageHash {
			return true
		}
	}
	return false
}
