package tasks

import "github.com/screenagent/backend/shared/trust"

// Memory is what the next step's prompt and policies need of the task's past, kept compact on
// the task item so that a step reads one item however long the task has run (the steps
// themselves are written for the record and the export, never read back by a step).
type Memory struct {
	// Recent are the latest steps, oldest first, at most MemorySteps of them.
	Recent []Brief `json:"recent,omitempty"`
	// Earlier counts the steps older than Recent.
	Earlier int `json:"earlier,omitempty"`
	// Messages are the user's messages after the task began, oldest first, at most MemoryMessages.
	Messages []UserMessage `json:"messages,omitempty"`
	// Pending is the question the agent asked the user and that awaits an answer.
	Pending string `json:"pending,omitempty"`
	// PendingByServer: the server asked Pending, not the model (a held payment, a failed login).
	PendingByServer bool `json:"pendingByServer,omitempty"`
	// Page is the digest of the page the last step was decided on (page.Digest's encoding),
	// for the new-element marks and the verification of the last action.
	Page []byte `json:"-"`
	// LoginPage is the last page when it was a login page (loginfail.Page as JSON), so that the
	// next step can tell whether the login failed.
	LoginPage []byte `json:"-"`
	// Searches are the task's latest web searches with their results, as prompt text.
	Searches []SearchNote `json:"searches,omitempty"`
	// Plan is the task's plan, when one was made.
	Plan *Plan `json:"plan,omitempty"`
	// Variables are the values extracted or given for the task (SERVER_QA_ROADMAP.md §3).
	Variables map[string]string `json:"variables,omitempty"`
	// Expected is what the last action should bring about, checked at the next step.
	Expected *Expectation `json:"expected,omitempty"`
	// Corrections counts the corrections since the last verified success, to stop retrying.
	Corrections int `json:"corrections,omitempty"`
	// Held is the confirmation id of the action the payment gate held at the last step (careful
	// mode): only the next request naming it approves that action, once.
	Held string `json:"held,omitempty"`
	// Secrets are the values typed into secret fields, as keyed hashes, to redact their echoes.
	// Never exported: the key would let anyone holding an export test guesses.
	Secrets trust.Secrets `json:"-"`
	// SecretNames are the secrets the client holds, by name (the latest request that named them).
	SecretNames []trust.NamedSecret `json:"-"`
	// Cache is the task's trail for the action cache (package actioncache), opaque here.
	Cache []byte `json:"-"`
}

// Bounds of the memory.
const (
	MemorySteps    = 12
	MemoryMessages = 10
	briefThought   = 400 // runes of a thought kept in memory
)

// Brief is a step as later prompts see it.
type Brief struct {
	Index   int    `json:"index"`
	Thought string `json:"thought,omitempty"`
	// Action is the action as stored (secrets masked), the first of a batch.
	Action string `json:"action"`
	// Actions are the parts of a batch as stored; nil for one action.
	Actions []string `json:"actions,omitempty"`
	// Result is the client's report on the action, filled in by the next request.
	Result *Report `json:"result,omitempty"`
	// Reported is set once the next request arrived (with or without a report).
	Reported bool `json:"reported,omitempty"`
	// URL is the page's address when the action was chosen.
	URL string `json:"url,omitempty"`
	// Fingerprint identifies the page the action was chosen on, for the loop guard.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Verdict is the verification of the action, once the next page came (verified, failed, unknown).
	Verdict string `json:"verdict,omitempty"`
	// Checked is what the verification looked at, said with the verdict.
	Checked string `json:"checked,omitempty"`
	// Note is what the server did or saw about the step (a refused loop, a dismissed overlay, …).
	Note string `json:"note,omitempty"`
	// PlanStep is the plan step (from 1) the model chose the action for, 0 without a plan or when
	// the server replaced the model's action: its verified outcome or answered question
	// completes that step.
	PlanStep int `json:"planStep,omitempty"`
	// Server says who chose the action when the model did not: ServerInstead (the server
	// replaced the model's action: a held payment, a closed overlay, a refused loop) or
	// ServerAlone (the server decided without the model, thought included: a failed login).
	Server string `json:"server,omitempty"`
}

// Who chose a step's action when the model did not (Brief.Server).
const (
	ServerInstead = "instead"
	ServerAlone   = "alone"
)

// MemorySearches bounds the searches kept in memory.
const MemorySearches = 3

// SearchNote is a web search of the task and what it found, summarized for the prompt.
type SearchNote struct {
	Query   string `json:"query"`
	Summary string `json:"summary"`
}

// AddSearch keeps a search's summary, dropping the oldest beyond MemorySearches.
func (m *Memory) AddSearch(n SearchNote) {
	m.Searches = append(m.Searches, n)
	if over := len(m.Searches) - MemorySearches; over > 0 {
		m.Searches = append([]SearchNote(nil), m.Searches[over:]...)
	}
}

// UserMessage is a message of the user after the task began.
type UserMessage struct {
	Text string `json:"text"`
	// Question is the agent's question it answers, when it answers one.
	Question string `json:"question,omitempty"`
	// ServerAsked: the server asked Question, not the model.
	ServerAsked bool `json:"serverAsked,omitempty"`
	// Step is the index of the step whose request carried it.
	Step int `json:"step"`
}

// Remember appends a step's brief, dropping the oldest beyond MemorySteps.
func (m *Memory) Remember(b Brief) {
	b.Thought = shorten(b.Thought, briefThought)
	m.Recent = append(m.Recent, b)
	if over := len(m.Recent) - MemorySteps; over > 0 {
		m.Recent = append([]Brief(nil), m.Recent[over:]...)
		m.Earlier += over
	}
}

// Last returns the latest step's brief, or nil.
func (m *Memory) Last() *Brief {
	if len(m.Recent) == 0 {
		return nil
	}
	return &m.Recent[len(m.Recent)-1]
}

// AddMessage records a user's message, keeping the last MemoryMessages.
func (m *Memory) AddMessage(msg UserMessage) {
	m.Messages = append(m.Messages, msg)
	if over := len(m.Messages) - MemoryMessages; over > 0 {
		m.Messages = append([]UserMessage(nil), m.Messages[over:]...)
	}
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
