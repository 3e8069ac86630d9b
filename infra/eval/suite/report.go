package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

func verdict(r Result) string {
	switch {
	case r.Success && r.ExpectedFail:
		return "PASS (unexpected: expected to fail)"
	case r.Success:
		return "pass"
	case r.ExpectedFail:
		return "fail (expected)"
	}
	return "FAIL"
}

// WriteTable prints the results as one table with totals.
func (rep *Report) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tL\tAPI\tresult\tsteps\tLLM calls\tcalls/step\tactions\tactions/step\tprompt tok\tcompl tok\ttime\tcost $\treason")
	for _, r := range rep.Scenarios {
		reason := r.Reason
		if r.ExpectedFail && !r.Success {
			reason = r.ExpectedFailReason + " — " + r.Reason
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%s\t%d\t%s\t%d\t%d\t%.1fs\t%.4f\t%s\n", r.Name, r.Level, r.API, verdict(r), r.Steps, r.LLMCalls,
			perStep(r.LLMCalls, r.Steps), r.Actions, perStep(r.Actions, r.Steps), r.PromptTokens, r.CompletionTokens, float64(r.WallMs)/1000, r.CostUSD, oneLine(reason, 160))
	}
	t := rep.Totals
	passed := 0
	for _, r := range rep.Scenarios {
		if r.Success {
			passed++
		}
	}
	fmt.Fprintf(tw, "TOTAL\t\t\t%d/%d passed\t%d\t%d\t%s\t%d\t%s\t%d\t%d\t\t%.4f\t%s tokens/step, %d unexpected\n", passed, len(rep.Scenarios), t.Steps, t.LLMCalls,
		perStep(t.LLMCalls, t.Steps), t.Actions, perStep(t.Actions, t.Steps), t.PromptTokens, t.CompletionTokens, t.CostUSD, perStep(t.PromptTokens+t.CompletionTokens, t.Steps), len(rep.unexpected()))
	tw.Flush()
	model := rep.Model
	if rep.Oracle {
		model = "the oracle"
	}
	fmt.Fprintf(w, "model: %s; average LLM calls per step: %.2f; actions per step: %.2f; steps per task: %.1f\n", model, t.CallsPerStep, t.ActionsPerStep, t.StepsPerTask)
	rep.writeRepeat(w)
}

// writeRepeat prints the repeat pass: each case again, and how much of it the action cache served.
func (rep *Report) writeRepeat(w io.Writer) {
	rt := rep.RepeatTotals
	if rt == nil {
		return
	}
	fmt.Fprintln(w, "\nrepeat pass (every case again, same tenant, after the first pass):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tAPI\tresult\tsteps\tfrom cache\tLLM calls\tcalls/step\ttime\treason")
	for _, r := range rep.Repeat {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%.1fs\t%s\n", r.Name, r.API, verdict(r), r.Steps, r.CachedSteps, r.LLMCalls,
			perStep(r.LLMCalls, r.Steps), float64(r.WallMs)/1000, oneLine(r.Reason, 160))
	}
	tw.Flush()
	fmt.Fprintf(w, "repeat pass: %d/%d passed (first pass %d/%d); %d of %d steps from the cache (%.0f%%); LLM calls per step %.2f (first pass %.2f); time %.1fs (first pass %.1fs)\n",
		rt.Passed, rt.Cases, rt.FirstPassed, len(rep.Scenarios), rt.CachedSteps, rt.Steps, 100*rt.CachedShare, rt.CallsPerStep, rt.FirstPerStep,
		float64(rt.WallMs)/1000, float64(rt.FirstPassWall)/1000)
}

func (rep *Report) unexpected() []Result {
	var out []Result
	for _, r := range rep.Scenarios {
		if r.Unexpected() {
			out = append(out, r)
		}
	}
	return out
}

func perStep(n, steps int) string {
	if steps == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(n)/float64(steps))
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// Write puts results.json, report.md and the screenshots (shots/<case>/step-NN.png) into dir.
func (rep *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dir, "shots")); err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	model := rep.Model
	if rep.Oracle {
		model = "the oracle (scripted, honest model)"
	}
	fmt.Fprintf(&md, "# Proving ground report\n\n%s, model: %s.\n\n", rep.GeneratedAt.Format("2006-01-02 15:04 UTC"), model)
	var table strings.Builder
	rep.WriteTable(&table)
	md.WriteString("```\n" + table.String() + "```\n")
	for _, r := range rep.Scenarios {
		id := r.Name + "-" + r.API
		fmt.Fprintf(&md, "\n## %s (%s API, level %d): %s\n\n", r.Name, r.API, r.Level, verdict(r))
		if r.ExpectedFailReason != "" {
			fmt.Fprintf(&md, "Expected to fail: %s.\n\n", r.ExpectedFailReason)
		}
		if r.Reason != "" {
			fmt.Fprintf(&md, "Why it failed: %s\n\n", r.Reason)
		}
		if a := r.Transcript.Answer; a != "" {
			fmt.Fprintf(&md, "Answer: %s\n\n", a)
		}
		for _, s := range r.Transcript.Steps {
			status := "ok"
			if !s.OK {
				status = "**failed**"
			}
			fmt.Fprintf(&md, "### Step %d — `%s`\n\n%s\n\n", s.N, mdCode(s.Action), s.URL)
			if s.Thought != "" {
				fmt.Fprintf(&md, "- thought: %s\n", oneLine(s.Thought, 600))
			}
			if s.Question != "" {
				fmt.Fprintf(&md, "- asked the user: %s\n- the user: %q (approved: %t)\n", oneLine(s.Question, 400), s.Reply, s.Approved)
			}
			fmt.Fprintf(&md, "- result: %s — %s\n\n", status, oneLine(s.Result, 400))
			if s.Screenshot != nil {
				name := fmt.Sprintf("shots/%s/step-%02d.png", id, s.N)
				if err := os.MkdirAll(filepath.Join(dir, "shots", id), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, name), s.Screenshot, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(&md, "![step %d](%s)\n\n", s.N, name)
			}
		}
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644)
}

func mdCode(s string) string { return strings.ReplaceAll(oneLine(s, 200), "`", "'") }
