package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// The reasoning layer folds planning, outcome prediction, self-evaluation, branch decisions and
// value extraction into the one call of each step (DESIGN.md decision 11): the reply may carry
// them as optional blocks beside <Thought> and <Action>, read here.

const (
	maxPlanSteps   = 20
	maxPlanStepLen = 300
	maxExpectItems = 6
)

var (
	planLine = regexp.MustCompile(`^\s*(?:\d+[.)]|[-*•])\s*(.+)$`)
	ifThen   = regexp.MustCompile(`(?i)^if\s+(.+?)\s*(?:,\s*)?then\s+(.+?)(?:\s*[,;]?\s*else\s+(.+))?$`)
	stepRef  = regexp.MustCompile(`(?i)^(?:go\s+to\s+)?step\s+(\d+)$`)
)

// parsePlan reads a <Plan> block: one step per line ("1. …" or "- …"); a conditional step is
// written "IF condition THEN outcome ELSE outcome", an outcome being continue, stop, ask_user
// or "step N".
func parsePlan(text string) []tasks.PlanStep {
	var steps []tasks.PlanStep
	for _, line := range strings.Split(text, "\n") {
		m := planLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		desc := shorten(strings.TrimSpace(m[1]), maxPlanStepLen)
		st := tasks.PlanStep{Description: desc, Status: tasks.PlanPending}
		if c := ifThen.FindStringSubmatch(desc); c != nil {
			st.Condition, st.OnTrue, st.OnFalse = c[1], outcome(c[2]), outcome(c[3])
		}
		steps = append(steps, st)
		if len(steps) == maxPlanSteps {
			break
		}
	}
	return steps
}

// outcome normalizes a branch outcome; anything it does not know is "continue".
func outcome(s string) string {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), ".;,"))
	switch {
	case s == "":
		return tasks.BranchContinue
	case strings.HasPrefix(s, "stop"), strings.HasPrefix(s, "finish"), strings.HasPrefix(s, "end"):
		return tasks.BranchStop
	case strings.HasPrefix(s, "ask"):
		return tasks.BranchAskUser
	case stepRef.MatchString(s):
		return "step " + stepRef.FindStringSubmatch(s)[1]
	}
	return tasks.BranchContinue
}

// planChange is what a reply's <Plan>, <Step> and <Branch> blocks changed in the task's plan.
type planChange struct {
	// steps is the length of the plan the reply gave (0 when it kept the plan); revision is that
	// plan's revision, 0 for the task's first.
	steps, revision int
	// movedTo is the plan step (1-based) the reply moved to; 0 when it stayed.
	movedTo int
	// branch is the conditional step decided by this reply; nil when none.
	branch *branchTaken
}

// branchTaken is a conditional plan step decided by a reply.
type branchTaken struct {
	step      int // 1-based
	condition string
	holds     bool
	outcome   string
}

func (c planChange) changed() bool { return c.steps > 0 || c.movedTo > 0 || c.branch != nil }

// planning tells a step that made or revised the plan from one that follows it (moving on or
// deciding a branch is following it).
func (c planChange) planning() bool { return c.steps > 0 }

// outcome is the outcome of the branch decided now ("" for none).
func (c planChange) outcome() string {
	if c.branch == nil {
		return ""
	}
	return c.branch.outcome
}

// String says what changed, for the debug log ("" for nothing).
func (c planChange) String() string {
	var parts []string
	if c.steps > 0 {
		parts = append(parts, fmt.Sprintf("plan %s with %d steps", map[bool]string{true: "made", false: "updated"}[c.revision == 0], c.steps))
	}
	if c.movedTo > 0 {
		parts = append(parts, fmt.Sprintf("now on plan step %d", c.movedTo))
	}
	if b := c.branch; b != nil {
		parts = append(parts, fmt.Sprintf("plan step %d: %q is %v → %s", b.step, b.condition, b.holds, b.outcome))
	}
	return strings.Join(parts, "; ")
}

// updatePlan applies the reply's <Plan>, <Step> and <Branch> blocks to the task's plan and returns
// what changed.
func updatePlan(mem *tasks.Memory, sections map[string]string) planChange {
	var change planChange
	if text, ok := sections["Plan"]; ok {
		if steps := parsePlan(text); len(steps) > 0 {
			rev := 0
			if mem.Plan != nil {
				rev = mem.Plan.Revision + 1
			}
			mem.Plan = &tasks.Plan{Steps: steps, Revision: rev}
			mem.Plan.Steps[0].Status = tasks.PlanInProgress
			change.steps, change.revision = len(steps), rev
		}
	}
	p := mem.Plan
	if p == nil {
		return change
	}
	if n, skipped, ok := parseStep(sections["Step"]); ok && n >= 1 && n <= len(p.Steps) {
		for _, k := range skipped {
			if k >= 1 && k <= len(p.Steps) && k != n {
				p.Steps[k-1].Status = tasks.PlanSkipped
			}
		}
		if n-1 != p.Current {
			moveTo(p, n-1)
			change.movedTo = n
		}
	}
	if text, ok := sections["Branch"]; ok {
		change.branch = takeBranch(p, text)
	}
	return change
}

// takeBranch decides the conditional step a <Branch> block names and moves the plan to its
// outcome; nil when the block names no conditional step.
func takeBranch(p *tasks.Plan, text string) *branchTaken {
	idx, holds, ok := parseBranch(text, p.Current)
	if !ok || idx >= len(p.Steps) || p.Steps[idx].Condition == "" {
		return nil
	}
	st := &p.Steps[idx]
	b := &branchTaken{step: idx + 1, condition: st.Condition, holds: holds, outcome: st.OnFalse}
	if holds {
		b.outcome = st.OnTrue
	}
	st.Taken, st.Status = strconv.FormatBool(holds), tasks.PlanDone
	if n, ok := strings.CutPrefix(b.outcome, "step "); ok {
		if k, err := strconv.Atoi(n); err == nil && k >= 1 && k <= len(p.Steps) {
			for i := idx + 1; i < k-1; i++ {
				p.Steps[i].Status = tasks.PlanSkipped
			}
			moveTo(p, k-1)
		}
	} else if b.outcome == tasks.BranchContinue && p.Current == idx {
		moveTo(p, idx+1)
	}
	return b
}

// parseBranch reads "3: true", "step 3 false", "yes" (for the current step).
func parseBranch(text string, current int) (idx int, holds, ok bool) {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r == ':' || r == ' ' || r == '=' || r == ',' })
	idx = current
	for _, f := range fields {
		switch f {
		case "true", "yes", "holds":
			return idx, true, true
		case "false", "no":
			return idx, false, true
		case "step":
		default:
			if n, err := strconv.Atoi(f); err == nil && n >= 1 {
				idx = n - 1
			}
		}
	}
	return idx, false, false
}

// parseStep reads a <Step> block: the current step's number, then the steps skipped, as in
// "4" or "4 (skipped 3)".
func parseStep(text string) (n int, skipped []int, ok bool) {
	low := strings.ToLower(text)
	head, tail, _ := strings.Cut(low, "skip")
	first := stepNumbers.FindString(head)
	if first == "" {
		return 0, nil, false
	}
	n, _ = strconv.Atoi(first)
	for _, s := range stepNumbers.FindAllString(tail, -1) {
		k, _ := strconv.Atoi(s)
		skipped = append(skipped, k)
	}
	return n, skipped, true
}

var stepNumbers = regexp.MustCompile(`\d+`)

// moveTo makes step i the current one: the ones before it that were open are done, and one
// after it that was current (the model went back) is open again.
func moveTo(p *tasks.Plan, i int) {
	for k := 0; k < i && k < len(p.Steps); k++ {
		if p.Steps[k].Status == tasks.PlanPending || p.Steps[k].Status == tasks.PlanInProgress {
			p.Steps[k].Status = tasks.PlanDone
		}
	}
	for k := i + 1; k < len(p.Steps); k++ {
		if p.Steps[k].Status == tasks.PlanInProgress {
			p.Steps[k].Status = tasks.PlanPending
		}
	}
	p.Current = i
	if i < len(p.Steps) {
		p.Steps[i].Status = tasks.PlanInProgress
	}
}

// planStepOf is the plan step the model chose its action for: the current one, unless the
// server chose the action (who, from chooser: a held payment, a closed overlay, a failed login's
// question), which then completes no step.
func planStepOf(p *tasks.Plan, who string) int {
	if p == nil || p.CurrentStep() == nil || who != "" {
		return 0
	}
	return p.Current + 1
}

// chooser says who chose the decision's action when the model did not (tasks.Brief.Server): the
// server alone when no model chose anything, instead of the model when a policy replaced its
// choice. The model's action was redacted of typed secrets (guardDecision) while the action typing
// one keeps it, so both are compared redacted.
func (d decision) chooser(sec *trust.Secrets) string {
	switch {
	case d.modelAction == "":
		return tasks.ServerAlone
	case sec.Redact(d.action.String()) != d.modelAction:
		return tasks.ServerInstead
	}
	return ""
}

// completeStep advances the plan past step n (from 1) when the action chosen for it reached its
// outcome (its expectation verified, or the user answered its question) and the plan has not
// moved since: the step just done must not stay current.
func completeStep(p *tasks.Plan, n int) {
	if p == nil || n < 1 || n-1 != p.Current || p.Steps[p.Current].Status != tasks.PlanInProgress {
		return
	}
	moveTo(p, n)
}

// completePlan marks every open step done when the task finishes.
func completePlan(p *tasks.Plan) {
	if p != nil {
		moveTo(p, len(p.Steps))
	}
}

func joinChange(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// evaluation reads the model's <Evaluation> of the previous action ("success: …").
func evaluation(sections map[string]string) (verdict, text string) {
	text, ok := sections["Evaluation"]
	if !ok {
		return "", ""
	}
	low := strings.ToLower(text)
	switch {
	case strings.HasPrefix(low, "success"), strings.HasPrefix(low, "ok"), strings.HasPrefix(low, "done"):
		return tasks.Verified, text
	case strings.HasPrefix(low, "fail"), strings.HasPrefix(low, "error"):
		return tasks.Unverified, text
	}
	return tasks.Undecided, text
}

// chooseCorrection picks the self-correction strategy for a failed verification from what was
// observed, and says what the model should do.
func chooseCorrection(last *tasks.Brief, o observation, corrections int) (strategy, guidance string) {
	code := ""
	if o.report != nil && o.report.Error != nil {
		code = strings.ToLower(o.report.Error.Code + " " + o.report.Error.Message)
	}
	switch {
	case corrections >= 2:
		return tasks.UpdatePlan, "Several corrections have not helped: step back, update the plan (<Plan>) with another way to reach the goal, or askUser if you need help."
	case strings.Contains(code, "not found") || strings.Contains(code, "missing") || strings.Contains(code, "not_found") || strings.Contains(code, "detached"):
		return tasks.AlternativeSelector, "The element was not there: pick another element of the current page for the same purpose."
	case strings.Contains(code, "intercept") || strings.Contains(code, "obscured") || strings.Contains(code, "covered"):
		return tasks.AlternativeTool, "Something covers the element: close what covers it first, or reach the goal with another action (pressKey, navigate, search)."
	case !o.changed && (actionName(last.Action) == "click" || actionName(last.Action) == "navigate") && corrections == 0:
		return tasks.RetryWithDelay, "Nothing changed yet; the page may still be loading: wait(2), then check again."
	case !o.changed:
		return tasks.AlternativeSelector, "The action changed nothing: try another element or another way."
	}
	return tasks.GatherInformation, "The page is not what was expected: look at it again (scroll, read) before acting, and adjust."
}

// checked is the verification of the last action, with the correction it calls for.
type checked struct {
	verification *tasks.Verification
	correction   *tasks.Correction
	notes        []string
}

// verifyLast checks the last step's action against the page this request brings (decision 12:
// deterministic evidence first) and, when it failed, chooses a correction for the prompt.
func verifyLast(mem *tasks.Memory, taskID, url, fp string, pg *pagemodel.Page, report *tasks.Report, now time.Time) checked {
	var c checked
	last := mem.Last()
	if last == nil {
		return c
	}
	expected, exempt := expectationOf(last, mem.Expected)
	if exempt {
		return c
	}
	o := observe(last, url, fp, pg, mem.Page, report)
	verdict, evidence := verify(expected, o)
	last.Verdict = verdict
	last.Checked = shorten(strings.Join(evidence, "; "), 300)
	if expected == nil && verdict != tasks.Unverified {
		// Nothing was predicted: the model's own evaluation in this step's reply decides.
		c.verification = &tasks.Verification{TaskID: taskID, StepIndex: last.Index, Action: last.Action, Verdict: tasks.Undecided, Method: "model", CreatedAt: now}
		return c
	}
	c.verification = &tasks.Verification{
		TaskID: taskID, StepIndex: last.Index, Action: last.Action, Verdict: verdict, Method: "deterministic",
		Expected: expected, Evidence: evidence, CreatedAt: now,
	}
	switch verdict {
	case tasks.Verified:
		mem.Corrections = 0
		completeStep(mem.Plan, last.PlanStep)
	case tasks.Unverified:
		strategy, guidance := chooseCorrection(last, o, mem.Corrections)
		mem.Corrections++
		c.correction = &tasks.Correction{TaskID: taskID, StepIndex: last.Index, Strategy: strategy, Reason: strings.Join(evidence, "; "), FailedAction: last.Action, CreatedAt: now}
		c.notes = append(c.notes, failureNote(*last, expected, evidence, o, report.Failed())+fmt.Sprintf("Correction (%s): %s", strategy, guidance))
	}
	return c
}

// expectationOf is what the last action should have brought about: its <Expect>, or for
// verifySuccess the check the model asked for, read like an expectation. exempt: actions the loop
// guard exempts (waiting, asking) are not verified.
func expectationOf(last *tasks.Brief, expected *tasks.Expectation) (_ *tasks.Expectation, exempt bool) {
	if actionName(last.Action) != "verifySuccess" {
		return expected, loopExempt[actionName(last.Action)]
	}
	a, err := actions.Parse(last.Action)
	if err != nil {
		return nil, false
	}
	text, _ := a.Text()
	return parseExpectation(text), false
}

// failureNote says what the failed verification found, ending with a space for the correction
// that follows; "" when the client reported the failure (it is said once, in the step's result).
func failureNote(last tasks.Brief, expected *tasks.Expectation, evidence []string, o observation, reportFailed bool) string {
	switch {
	case reportFailed:
		return ""
	case expected != nil && len(o.errors) == 0:
		return trust.Sentence(fmt.Sprintf("Verification of your last step (%s) failed: expected %s, but %s",
			strings.Join(partsOf(last), "; "), quote(expected.Description), strings.Join(evidence, "; "))) + " "
	default:
		return trust.Sentence(fmt.Sprintf("Verification of your last step (%s) failed: %s", strings.Join(partsOf(last), "; "), strings.Join(evidence, "; "))) + " "
	}
}

// fold completes the verification with the model's own evaluation when the evidence could not
// decide, and records the corrected action.
func (c *checked) fold(d decision) {
	if v := c.verification; v != nil && v.Verdict == tasks.Undecided {
		if verdict, text := evaluation(d.sections); verdict != "" {
			v.Verdict, v.Method = verdict, "model"
			v.Evidence = append(v.Evidence, "the model's evaluation: "+shorten(oneLine(text), 300))
		}
	}
	if c.verification != nil && c.verification.Method == "model" && c.verification.Verdict == tasks.Undecided && len(c.verification.Evidence) == 0 {
		c.verification = nil
	}
	if c.correction != nil {
		c.correction.Action = d.action.String()
	}
}

// extract stores the reply's <Extract> block ("key = value" or "key: value" lines).
func extract(mem *tasks.Memory, text string) []string {
	var keys []string
	for _, line := range strings.Split(text, "\n") {
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			key, value, ok = strings.Cut(line, ":")
		}
		key, value = strings.TrimSpace(strings.TrimLeft(key, "-* ")), strings.Trim(strings.TrimSpace(value), `"`)
		if !ok || key == "" || len(key) > MaxVariableKey {
			continue
		}
		if mem.Variables == nil {
			mem.Variables = map[string]string{}
		}
		if _, exists := mem.Variables[key]; !exists && len(mem.Variables) >= MaxVariables {
			continue
		}
		mem.Variables[key] = shorten(value, MaxVariableValue)
		keys = append(keys, key)
	}
	return keys
}

// applyBranch carries out a branch decided in this reply when the model's action does not: a
// "stop" ends the task, an "ask_user" asks the user.
func applyBranch(d decision, branch string, p *tasks.Plan) decision {
	var cond string
	if p != nil {
		for _, s := range p.Steps {
			if s.Taken != "" {
				cond = s.Condition
			}
		}
	}
	switch {
	case branch == tasks.BranchStop && !d.action.Terminal():
		a, _ := actions.New("finish", "Stopped as planned: the condition "+quote(cond)+" decided so.")
		d.action = a
		d.note = joinChange(d.note, "the plan's branch said stop")
	case branch == tasks.BranchAskUser && d.action.Effect() != actions.AsksUser:
		a, _ := actions.New("askUser", "How should I continue? The plan asks you to decide: "+cond)
		d.action = a
		d.note = joinChange(d.note, "the plan's branch asks the user")
	}
	return d
}

// clearBlocker answers with closing an open overlay (a modal dialog or a cookie banner) when the
// model targets an element under it (SERVER_QA_ROADMAP.md §5): the overlay's own Accept/Close
// control, else Escape. The model's target comes next; the note tells it so.
func clearBlocker(d decision, pg *pagemodel.Page) decision {
	id, ok := d.action.ElementID()
	if !ok {
		return d
	}
	for _, o := range page.Overlays(pg) {
		if !o.Modal && o.Kind != page.OverlayCookieConsent || slices.Contains(o.IDs, id) {
			continue
		}
		dismiss, err := actions.New("pressKey", "Escape")
		if o.DismissID >= 0 {
			dismiss, err = actions.New("click", o.DismissID)
		}
		if err != nil {
			return d
		}
		what := string(o.Kind)
		if o.Label != "" {
			what += " " + quote(o.Label)
		}
		d.note = joinChange(d.note, fmt.Sprintf("the %s covered the page, so the server closed it with %s first; the intended %s comes next", what, dismiss, d.action))
		d.thought = strings.TrimSpace(d.thought + " First I'll close the " + string(o.Kind) + " that covers the page.")
		d.action = dismiss
		return d
	}
	return d
}
