// Package agent is the interact engine: one step of a task per request, with the task's history
// held on the server, the tenant's knowledge in the prompt, and the LLM choosing the next action.
package agent

import (
	"fmt"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
	"github.com/screenagent/backend/shared/usertime"
	"github.com/screenagent/backend/shared/validation"
)

// Request is one POST /api/agent/interact, validated by NewRequest.
type Request struct {
	Identity accounts.Identity
	URL      string
	Query    string
	DOM      string
	TaskID   string
	// SessionID continues a chat session; empty starts one with a new task.
	SessionID string
	// Report is the client's report on the previous action (nil when it sent none).
	Report *tasks.Report
	// IdempotencyKey and RequestHash make a retried request return the stored response.
	IdempotencyKey string
	RequestHash    string
	// Debug adds debugInfo to the response.
	Debug bool
	// Variables are the client's extracted variables, merged into the task's.
	Variables map[string]string
	// Mode is ModeCareful or ModeAutonomous (the default): careful asks the user before an action
	// the payment gate holds.
	Mode string
	// ConfirmationID approves the action the payment gate held at the task's last step.
	ConfirmationID string
	// Clock is the user's time zone and locale, when the request named them.
	Clock usertime.Clock
	// SecretNames are the secrets the client holds, by name; nil keeps the task's.
	SecretNames []trust.NamedSecret
	// Batch: the client declared actionBatch and runs the answer's actions in order.
	Batch bool
	// NoCache opts the step out of the action cache (cache: false).
	NoCache bool
}

// Limits of extracted variables (SERVER_QA_ROADMAP.md §3).
const (
	MaxVariables     = 50
	MaxVariableKey   = 100
	MaxVariableValue = 2000
)

// ValidateVariables checks the client's extractedVariables against the limits; the error names
// the offending field.
func ValidateVariables(vars map[string]string) error {
	if len(vars) > MaxVariables {
		return &validation.Error{Field: "extractedVariables", Reason: fmt.Sprintf("must have at most %d keys", MaxVariables)}
	}
	for k, v := range vars {
		switch {
		case k == "" || utf8.RuneCountInString(k) > MaxVariableKey:
			return &validation.Error{Field: "extractedVariables", Reason: fmt.Sprintf("keys must be 1 to %d characters", MaxVariableKey)}
		case utf8.RuneCountInString(v) > MaxVariableValue:
			return &validation.Error{Field: "extractedVariables." + k, Reason: fmt.Sprintf("must be at most %d characters", MaxVariableValue)}
		}
	}
	return nil
}

// Response statuses beyond the task's own: the orchestrator's state of a task that goes on
// (SERVER_SIDE_AGENT_ARCH.md §4.9), and a task waiting for the user.
const (
	StatusNeedsUserInput = "needs_user_input"
	StatusPlanning       = "planning"
	StatusExecuting      = "executing"
	StatusVerifying      = "verifying"
	StatusCorrecting     = "correcting"
)

// Usage is the LLM's token usage in the response.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
}

// Metrics describe the step's execution.
type Metrics struct {
	DurationMs       int64 `json:"durationMs"`
	LLMLatencyMs     int64 `json:"llmLatencyMs"`
	LLMAttempts      int   `json:"llmAttempts"`
	PromptTokens     int   `json:"promptTokens"`
	CompletionTokens int   `json:"completionTokens"`
	StepCount        int   `json:"stepCount"`
	MaxSteps         int   `json:"maxSteps"`
	PageTokens       int   `json:"pageTokens"`
	PageTruncated    bool  `json:"pageTruncated"`
	CorrectiveRetry  bool  `json:"correctiveRetry,omitempty"`
	// Cache says whether the action came from the action cache: hit, miss or off.
	Cache string `json:"cache,omitempty"`
}

// Response is the NextActionResponse (§4.2, §4.11, §4.12) inside the success envelope.
type Response struct {
	Thought string `json:"thought"`
	// Action is the action, or the first of Actions, so that a client without batches still works.
	Action string `json:"action"`
	// Actions are the actions to run in order, for a client that declared actionBatch.
	Actions []string `json:"actions,omitempty"`
	// Result is the task's answer, given with finish("…").
	Result          string `json:"result,omitempty"`
	Usage           *Usage `json:"usage,omitempty"`
	TaskID          string `json:"taskId"`
	SessionID       string `json:"sessionId"`
	HasOrgKnowledge bool   `json:"hasOrgKnowledge"`
	Status          string `json:"status"`
	CurrentStep     int    `json:"currentStep"`
	UserQuestion    string `json:"userQuestion,omitempty"`
	// TotalSteps is the plan's length; with a plan, CurrentStep is the plan step being worked on.
	TotalSteps         int                 `json:"totalSteps,omitempty"`
	Plan               *tasks.Plan         `json:"plan,omitempty"`
	StepProgress       *StepProgress       `json:"stepProgress,omitempty"`
	ExpectedOutcome    *tasks.Expectation  `json:"expectedOutcome,omitempty"`
	Verification       *tasks.Verification `json:"verification,omitempty"`
	Correction         *tasks.Correction   `json:"correction,omitempty"`
	ToolAction         ToolAction          `json:"toolAction"`
	ExtractedVariables map[string]string   `json:"extractedVariables,omitempty"`
	MissingInformation []string            `json:"missingInformation,omitempty"`
	// ConfirmationID comes with a question about an action the payment gate held (careful mode);
	// the request that approves it sends it back.
	ConfirmationID string `json:"confirmationId,omitempty"`
	// UserRequest says what kind of answer the question asks for, and in which fields.
	UserRequest *trust.UserRequest `json:"userRequest,omitempty"`
	Metrics     Metrics            `json:"metrics"`
	DebugInfo   map[string]any     `json:"debugInfo,omitempty"`
	// LogAction is the action as the request's log line may show it (a typed secret masked).
	LogAction string `json:"-"`
}

// StepProgress is the plan step being worked on (SERVER_QA_ROADMAP.md §7.2).
type StepProgress struct {
	CurrentStep     int    `json:"currentStep"`
	TotalSteps      int    `json:"totalSteps"`
	StepDescription string `json:"stepDescription"`
}

// ToolAction is the action as a structure (§4.9 step refinement): who executes it and with what.
type ToolAction struct {
	ToolType  string `json:"toolType"`
	Name      string `json:"name"`
	Arguments []any  `json:"arguments"`
}
