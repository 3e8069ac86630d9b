package tasks

import "time"

// Plan is the task's plan (SERVER_SIDE_AGENT_ARCH.md §4.9, SERVER_QA_ROADMAP.md §6–§7): steps with
// a status, the one being worked on, and conditional steps whose branch is decided on the way.
type Plan struct {
	Steps []PlanStep `json:"steps"`
	// Current is the index of the step being worked on (len(Steps) once all are done).
	Current int `json:"currentStepIndex"`
	// Revision counts the plan's updates.
	Revision int `json:"revision"`
}

// Plan step statuses.
const (
	PlanPending    = "pending"
	PlanInProgress = "in_progress"
	PlanDone       = "done"
	PlanSkipped    = "skipped"
	PlanFailed     = "failed"
)

// Branch outcomes of a conditional step.
const (
	BranchContinue = "continue"
	BranchStop     = "stop"
	BranchAskUser  = "ask_user"
)

// PlanStep is one step of a plan. A conditional step has a Condition and what to do when it holds
// (OnTrue) or not (OnFalse): continue, stop, ask_user, or the numbers of the plan steps to do next
// ("steps 4-5"); Taken records the branch once decided.
type PlanStep struct {
	Description string `json:"description"`
	Status      string `json:"status"`
	Condition   string `json:"condition,omitempty"`
	OnTrue      string `json:"onTrue,omitempty"`
	OnFalse     string `json:"onFalse,omitempty"`
	Taken       string `json:"branchTaken,omitempty"`
}

// CurrentStep returns the step being worked on, or nil when the plan is done.
func (p *Plan) CurrentStep() *PlanStep {
	if p == nil || p.Current < 0 || p.Current >= len(p.Steps) {
		return nil
	}
	return &p.Steps[p.Current]
}

// Expectation is what an action should bring about (the expected outcome), checked
// deterministically against the next page.
type Expectation struct {
	Description string `json:"description"`
	// URLChanges: the URL should change; URLContains: the new URL should contain this.
	URLChanges  bool   `json:"urlChanges,omitempty"`
	URLContains string `json:"urlContains,omitempty"`
	// TextAppears / TextDisappears: page text that should appear or vanish.
	TextAppears    []string `json:"textAppears,omitempty"`
	TextDisappears []string `json:"textDisappears,omitempty"`
	// PageChanges: something on the page should change (the weakest expectation).
	PageChanges bool `json:"pageChanges,omitempty"`
	// Or are alternative outcomes ("… appears, or … disappears"): any one of them is success.
	Or []Expectation `json:"or,omitempty"`
}

// Verification verdicts.
const (
	Verified   = "verified"
	Unverified = "failed"
	Undecided  = "unknown"
)

// Verification is the check of a step's action against the page that followed it (a verification
// record, kept RetentionRecordsDays).
type Verification struct {
	TaskID string `json:"taskId"`
	// StepIndex is the step whose action was checked.
	StepIndex int    `json:"stepIndex"`
	Action    string `json:"action"`
	// Verdict is Verified, Unverified or Undecided.
	Verdict string `json:"verdict"`
	// Method is how it was decided: "deterministic", "model" (the model's own evaluation in the
	// main call) or "verifier" (a separate short call).
	Method   string       `json:"method"`
	Expected *Expectation `json:"expectedOutcome,omitempty"`
	// Evidence lists what was observed (URL changed, text appeared, an error appeared, …).
	Evidence  []string  `json:"evidence,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// Correction strategies (SERVER_SIDE_AGENT_ARCH.md §4.9).
const (
	AlternativeSelector = "ALTERNATIVE_SELECTOR"
	AlternativeTool     = "ALTERNATIVE_TOOL"
	GatherInformation   = "GATHER_INFORMATION"
	UpdatePlan          = "UPDATE_PLAN"
	RetryWithDelay      = "RETRY_WITH_DELAY"
)

// Correction is what the agent does about a failed verification (a correction record, kept
// RetentionRecordsDays).
type Correction struct {
	TaskID string `json:"taskId"`
	// StepIndex is the step whose verification failed.
	StepIndex int    `json:"stepIndex"`
	Strategy  string `json:"strategy"`
	Reason    string `json:"reason"`
	// FailedAction is the action that failed; Action is the corrected one, once chosen.
	FailedAction string    `json:"failedAction"`
	Action       string    `json:"action,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
}
