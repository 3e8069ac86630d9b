package runs

import "github.com/screenagent/backend/shared/trust"

// The response bodies of the run API, in the exact shapes of PROXY_SERVER_API.md (its thin
// client depends on them); fields beyond the documented ones are only ever added.

// Actions of a step response.
const (
	ActionExecuteTool = "execute_tool"
	ActionAskUser     = "ask_user"
	ActionFinish      = "finish"
	ActionError       = "error"
)

// StateView is the run state every step response carries.
type StateView struct {
	Status      Status `json:"status"`
	CurrentStep int    `json:"currentStep"`
	MaxSteps    int    `json:"maxSteps"`
}

func stateOf(r Run) StateView {
	return StateView{Status: r.Status, CurrentStep: r.CurrentStep, MaxSteps: r.MaxSteps}
}

// ToolView is a tool call as the client executes it.
type ToolView struct {
	Name       string         `json:"name"`
	Parameters map[string]any `json:"parameters"`
}

func toolView(t *Tool) *ToolView {
	if t == nil {
		return nil
	}
	return &ToolView{Name: t.Name, Parameters: t.Parameters()}
}

// StartResponse is the body of POST /agent/run/start.
type StartResponse struct {
	Success bool      `json:"success"`
	RunID   string    `json:"runId"`
	State   StateView `json:"state"`
}

// StepResponse is the body of POST /agent/run/{runId}/step and /answer: one of execute_tool
// (with tool), ask_user (question), finish (result) or error (error).
type StepResponse struct {
	Action string    `json:"action"`
	Tool   *ToolView `json:"tool,omitempty"`
	// Tools are the calls to execute in order, for a run whose client declared actionBatch; Tool
	// is the first.
	Tools    []ToolView `json:"tools,omitempty"`
	Question string     `json:"question,omitempty"`
	// UserRequest says what kind of answer the question asks for, and in which fields.
	UserRequest *trust.UserRequest `json:"userRequest,omitempty"`
	Result      string             `json:"result,omitempty"`
	Error       string             `json:"error,omitempty"`
	// ConfirmationID comes with a question about an action the security gate held; the client
	// sends it back with an approving /answer.
	ConfirmationID string    `json:"confirmationId,omitempty"`
	State          StateView `json:"state"`
	// Metrics describe the request for its log line; they are not sent.
	Metrics StepMetrics `json:"-"`
}

// StepMetrics are a step's figures for logs and metrics.
type StepMetrics struct {
	PromptTokens     int
	CompletionTokens int
	LLMLatencyMs     int64
	LLMAttempts      int
	CorrectiveRetry  bool
	Replayed         bool
	// Cache says whether the action came from the action cache: hit, miss or off ("" without a page).
	Cache string
}

// RunView is the state of GET /agent/run/{runId}.
type RunView struct {
	RunID           string           `json:"runId"`
	Task            string           `json:"task"`
	Mode            Mode             `json:"mode"`
	Status          Status           `json:"status"`
	CurrentStep     int              `json:"currentStep"`
	MaxSteps        int              `json:"maxSteps"`
	History         []HistoryView    `json:"history"`
	Reflections     []ReflectionView `json:"reflections"`
	CurrentSnapshot *Snapshot        `json:"currentSnapshot"`
	PendingQuestion string           `json:"pendingQuestion,omitempty"`
	// PendingConfirmationID is the id an approving /answer must send, while the security gate holds an action.
	PendingConfirmationID string `json:"pendingConfirmationId,omitempty"`
	Result                string `json:"result,omitempty"`
	Error                 string `json:"error,omitempty"`
	CreatedAt             int64  `json:"createdAt"`
	UpdatedAt             int64  `json:"updatedAt"`
}

// GetResponse is the body of GET /agent/run/{runId}.
type GetResponse struct {
	Success bool    `json:"success"`
	State   RunView `json:"state"`
}

// HistoryView is one step of the history. Observation is the result of the step's action (or
// the user's answer to a question), absent until it arrives.
type HistoryView struct {
	StepNumber int       `json:"stepNumber"`
	Action     string    `json:"action"`
	Tool       *ToolView `json:"tool,omitempty"`
	// Tools are the calls of a batch step, in order: one step with its parts.
	Tools       []ToolView `json:"tools,omitempty"`
	Question    string     `json:"question,omitempty"`
	Answer      string     `json:"answer,omitempty"`
	Observation string     `json:"observation,omitempty"`
	Warning     string     `json:"warning,omitempty"`
	Timestamp   int64      `json:"timestamp"`
}

// ReflectionView is one self-reflection.
type ReflectionView struct {
	StepNumber      int        `json:"stepNumber"`
	StepsAnalyzed   int        `json:"stepsAnalyzed"`
	Efficiency      Efficiency `json:"efficiency"`
	Issues          []string   `json:"issues"`
	Suggestions     []string   `json:"suggestions"`
	ShouldAdjust    bool       `json:"shouldAdjust"`
	Observes        int        `json:"observes"`
	Errors          int        `json:"errors"`
	Successes       int        `json:"successes"`
	ActionDiversity float64    `json:"actionDiversity"`
	Timestamp       int64      `json:"timestamp"`
}

// CancelResponse is the body of POST /agent/run/{runId}/cancel.
type CancelResponse struct {
	Success bool `json:"success"`
}

func runView(r Run, entries []Entry) RunView {
	entries = redactEntries(&r, entries)
	v := RunView{
		RunID: r.ID, Task: r.Secrets.Redact(r.Task), Mode: r.Mode, Status: r.Status, CurrentStep: r.CurrentStep, MaxSteps: r.MaxSteps,
		History: make([]HistoryView, 0, len(entries)), Reflections: make([]ReflectionView, 0, len(r.Reflections)),
		CurrentSnapshot: r.CurrentSnapshot, PendingQuestion: r.PendingQuestion, PendingConfirmationID: r.PendingConfirmation, Result: r.Result, Error: r.Error,
		CreatedAt: r.CreatedAt.UnixMilli(), UpdatedAt: r.UpdatedAt.UnixMilli(),
	}
	results := resultsOf(entries, r.LastResult)
	for i, e := range entries {
		h := HistoryView{
			StepNumber: e.StepNumber, Action: e.Action, Tool: toolView(e.Tool), Question: e.Question, Answer: e.Answer,
			Warning: e.Warning, Timestamp: e.CreatedAt.UnixMilli(),
		}
		if len(e.Tools) > 1 {
			h.Tools = toolViews(e.Tools)
		}
		if results[i] != nil {
			h.Observation = results[i].Observation()
			if len(results[i].Parts) > 1 {
				h.Observation = describeParts(results[i].Parts, e.Tools)
			}
		}
		v.History = append(v.History, h)
	}
	for _, x := range r.Reflections {
		v.Reflections = append(v.Reflections, ReflectionView{
			StepNumber: x.StepNumber, StepsAnalyzed: x.StepsAnalyzed, Efficiency: x.Efficiency,
			Issues: nonNil(x.Issues), Suggestions: nonNil(x.Suggestions), ShouldAdjust: x.ShouldAdjust,
			Observes: x.Observes, Errors: x.Errors, Successes: x.Successes, ActionDiversity: x.ActionDiversity,
			Timestamp: x.CreatedAt.UnixMilli(),
		})
	}
	return v
}

// resultsOf aligns results with entries: the result of entry i arrived with entry i+1's request,
// the last one with last (nil when it has not arrived).
func resultsOf(entries []Entry, last *Result) []*Result {
	out := make([]*Result, len(entries))
	for i := range entries {
		if i+1 < len(entries) {
			out[i] = entries[i+1].PreviousResult
		} else {
			out[i] = last
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
