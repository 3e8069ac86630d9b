package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/agent/commit"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/tokens"
	"github.com/screenagent/backend/shared/trust"
)

// Errors of the engine, mapped to the contract by the interact handler. Each means the request
// changed nothing.
var (
	ErrTaskNotFound        = errors.New("agent: task not found")
	ErrTaskCompleted       = errors.New("agent: task already finished")
	ErrMaxSteps            = errors.New("agent: maximum steps exceeded")
	ErrSessionNotFound     = errors.New("agent: session not found")
	ErrSessionMismatch     = errors.New("agent: session does not belong to the task")
	ErrConflict            = errors.New("agent: concurrent step on the task")
	ErrIdempotencyMismatch = errors.New("agent: idempotency key reused with another request")
	ErrLLM                 = errors.New("agent: llm failed")
)

// TaskStore is what the engine needs of the tasks store.
type TaskStore interface {
	GetTask(ctx context.Context, tenantID, taskID string) (tasks.Task, error)
	Steps(ctx context.Context, tenantID, taskID string) ([]tasks.Step, error)
	FailTask(ctx context.Context, task tasks.Task, reason string) error
	AlignSteps(ctx context.Context, tenantID, taskID string) error
	GetIdempotency(ctx context.Context, tenantID, key string) (tasks.IdempotencyRecord, error)
	PutDebug(ctx context.Context, tenantID string, e tasks.DebugEntry) error
	TaskLeases
}

// ChatStore is what the engine needs of the chat store.
type ChatStore interface {
	GetSession(ctx context.Context, tenantID, sessionID string) (chat.Session, error)
	CaptureDOM(ctx context.Context, tenantID, sessionID, dom string) (chat.DOMCapture, error)
	SetStatus(ctx context.Context, tenantID, sessionID string, status chat.Status) (chat.Session, error)
}

// StepWriter commits everything a step writes in one all-or-nothing transaction (agentdb.Writer).
// A task or session changed since it was read fails it with tasks.ErrConflict.
type StepWriter interface {
	CommitStep(ctx context.Context, c commit.Step) error
}

// Retriever finds the tenant's knowledge for a page.
type Retriever interface {
	Resolve(ctx context.Context, tenantID, rawURL, query string) (knowledge.Result, error)
}

// Searcher searches the web for the googleSearch SERVER tool.
type Searcher interface {
	Search(ctx context.Context, req search.Request) (search.Results, error)
}

// Engine decides and records one step of a task.
type Engine struct {
	Tasks     TaskStore
	Chat      ChatStore
	Commit    StepWriter
	Knowledge Retriever
	// Search serves googleSearch; nil means no web search (the model is told so).
	Search Searcher
	// Gate reads a tenant's additions to the payment gate for careful requests; nil means the
	// built-in rules only.
	Gate GateSettings
	// Events publishes the session's real-time events; nil publishes none.
	Events Events
	LLM    llm.Client
	// Cache serves repeated tasks without the model; nil serves nothing.
	Cache ActionCache
	// Model names the configured model for records (the reply's own model wins when given).
	Model string
	// MaxSteps bounds a task (50 by default).
	MaxSteps int
	// PageBudget is the token budget of the page part of the prompt (page.DefaultBudget by default).
	PageBudget int
	// WriteReserve is the time kept after the LLM for storing the step, so a step never runs
	// into the gateway's timeout with half its state written.
	WriteReserve time.Duration
	// CorrectionMinBudget is the time a corrective retry needs; with less left it is skipped.
	CorrectionMinBudget time.Duration
	Now                 func() time.Time
	Logger              *slog.Logger
}

// Defaults of the engine's limits.
const (
	DefaultMaxSteps            = 50
	DefaultWriteReserve        = 3 * time.Second
	DefaultCorrectionMinBudget = 5 * time.Second
)

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Engine) maxSteps() int {
	if e.MaxSteps > 0 {
		return e.MaxSteps
	}
	return DefaultMaxSteps
}

func (e *Engine) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.Default()
}

// Interact runs one step: it loads the task (whose item holds what the prompt needs of its past),
// takes in the client's report and the user's message, asks the LLM for the next action and
// stores the step, its chat messages, a debug entry and the idempotency record in one
// transaction. Any error leaves the task exactly as it was. The task and the Idempotency-Key are
// held while the LLM decides (lease.go).
func (e *Engine) Interact(ctx context.Context, req Request) (_ Response, err error) {
	start := e.now()
	req.IdempotencyKey = ownKey(req)
	h, replayed, found, err := e.claim(ctx, req)
	if found || err != nil {
		return replayed, err
	}
	defer func() { h.release(ctx, err) }()

	in, err := e.begin(ctx, req, h, start)
	if err != nil {
		return Response{}, err
	}
	e.observe(ctx, in)
	if err := e.decideStep(ctx, in); err != nil {
		return Response{}, err
	}
	e.enforcePolicies(in)
	e.answer(in)
	return e.commit(ctx, in)
}

// state is what a step starts from.
type state struct {
	task       tasks.Task
	isNew      bool
	session    chat.Session
	newSession bool
	// batch: the client runs batches of actions (capabilities: actionBatch).
	batch bool
}

// load reads the task and its session, or starts both for a new task.
func (e *Engine) load(ctx context.Context, req Request) (state, error) {
	var st state
	var err error
	if req.TaskID == "" {
		st.isNew = true
		st.task = tasks.Task{
			ID: uuid.NewString(), TenantID: req.Identity.TenantID, UserID: req.Identity.UserID, URL: req.URL, Query: req.Query,
			Status: tasks.StatusActive,
		}
	} else if st.task, err = e.loadTask(ctx, req); err != nil {
		return st, err
	}
	sessionID := req.SessionID
	if !st.isNew {
		sessionID = st.task.SessionID
	}
	if st.session, st.newSession, err = e.loadSession(ctx, req, sessionID, st.task.ID); err != nil {
		return st, err
	}
	st.task.SessionID = st.session.ID
	return st, nil
}

// loadTask reads the user's active task the request continues.
func (e *Engine) loadTask(ctx context.Context, req Request) (tasks.Task, error) {
	t, err := e.Tasks.GetTask(ctx, req.Identity.TenantID, req.TaskID)
	// Another member's task is not found either, rather than failing later on its session:
	// the answer must not tell that the id exists.
	if errors.Is(err, tasks.ErrNotFound) || err == nil && t.UserID != req.Identity.UserID {
		return t, ErrTaskNotFound
	}
	switch {
	case err != nil:
		return t, err
	case t.Status != tasks.StatusActive:
		return t, ErrTaskCompleted
	case req.SessionID != "" && req.SessionID != t.SessionID:
		return t, ErrSessionMismatch
	case t.StepCount >= e.maxSteps():
		return t, e.failTooLong(ctx, t)
	}
	return t, nil
}

// loadSession reads the user's session (created when sessionID is "").
func (e *Engine) loadSession(ctx context.Context, req Request, sessionID, taskID string) (_ chat.Session, created bool, _ error) {
	if sessionID == "" {
		sess, err := chat.NewSession(req.Identity.TenantID, req.Identity.UserID, taskID, req.URL, req.Query, e.now())
		return sess, err == nil, err
	}
	sess, err := e.Chat.GetSession(ctx, req.Identity.TenantID, sessionID)
	if errors.Is(err, chat.ErrNotFound) || err == nil && (sess.Archived || sess.UserID != req.Identity.UserID) {
		return sess, false, ErrSessionNotFound
	}
	return sess, false, err
}

// failTooLong fails a task that reached its step limit (§4.4): the request that would be the
// next step gets MAX_STEPS_EXCEEDED.
func (e *Engine) failTooLong(ctx context.Context, t tasks.Task) error {
	reason := fmt.Sprintf("the task exceeded %d steps", e.maxSteps())
	err := e.Tasks.FailTask(ctx, t, reason)
	if errors.Is(err, tasks.ErrConflict) {
		return ErrConflict
	}
	if err != nil {
		return err
	}
	e.alignSteps(ctx, t)
	if t.SessionID != "" {
		if _, err := e.Chat.SetStatus(ctx, t.TenantID, t.SessionID, chat.StatusFailed); err != nil {
			e.logger().WarnContext(ctx, "session status after max steps", "taskId", t.ID, "error", err.Error())
		}
	}
	return ErrMaxSteps
}

// replay answers a request whose Idempotency-Key was seen: the stored response for the same
// body, an error for another body.
func (e *Engine) replay(ctx context.Context, tenant string, req Request) (Response, bool, error) {
	rec, err := e.Tasks.GetIdempotency(ctx, tenant, req.IdempotencyKey)
	if errors.Is(err, tasks.ErrNotFound) {
		return Response{}, false, nil
	}
	if err != nil {
		return Response{}, false, err
	}
	if rec.RequestHash != req.RequestHash {
		return Response{}, true, ErrIdempotencyMismatch
	}
	var r recorded
	if err := json.Unmarshal(rec.Body, &r); err != nil {
		return Response{}, true, fmt.Errorf("decode stored response: %w", err)
	}
	r.Response.LogAction = r.LogAction
	return r.Response, true, nil
}

// recorded is the idempotency record's body: the response as answered, with the action its log
// line showed (never sent to the client), so that a replay logs what was answered, masked alike.
type recorded struct {
	Response
	LogAction string `json:"logAction,omitempty"`
}

// store writes the step, its chat messages, the debug entries and the idempotency record in one
// transaction.
func (e *Engine) store(ctx context.Context, in *interaction, step tasks.Step) error {
	req, st := in.req, in.state
	now := e.now()
	// The stored page keeps no secret: neither a secret field's value nor a typed secret the page shows back.
	capture, err := e.Chat.CaptureDOM(ctx, req.Identity.TenantID, st.session.ID, pagemodel.RedactDOM(st.task.Memory.Secrets.Redact(req.DOM)))
	if err != nil {
		return err
	}
	c := commit.Step{
		Task: st.task, IsNew: st.isNew, Step: step, Status: in.status,
		Session: st.session, NewSession: st.newSession, Messages: in.messages(step, capture), Snapshot: capture.Snapshot, SessionStatus: chat.Status(in.status),
		Debug: e.debugEntries(in, step.Index, now), Verification: in.resp.Verification, Correction: in.resp.Correction, Now: now,
	}
	if req.IdempotencyKey != "" {
		body, err := json.Marshal(recorded{Response: in.resp, LogAction: in.resp.LogAction})
		if err != nil {
			return fmt.Errorf("encode response: %w", err)
		}
		c.Idempotency = &tasks.IdempotencyRecord{Key: req.IdempotencyKey, RequestHash: req.RequestHash, StatusCode: 200, Body: body}
	}

	// The writes must land even when the client has gone: they are bounded by their own deadline.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.writeReserve())
	defer cancel()
	err = e.Commit.CommitStep(wctx, c)
	switch {
	case errors.Is(err, tasks.ErrConflict), errors.Is(err, ErrConflict):
		return ErrConflict
	case err != nil:
		return fmt.Errorf("store step %d of task %s: %w", step.Index, st.task.ID, err)
	}
	if in.status.Finished() {
		e.alignSteps(wctx, st.task)
	}
	return nil
}

// messages are the step's chat messages: the user's, the report on the last action, the
// assistant's step with its page capture, and the result of a finished task.
func (in *interaction) messages(step tasks.Step, capture chat.DOMCapture) []chat.Message {
	var msgs []chat.Message
	if in.isNew || step.UserMessage != "" {
		msgs = append(msgs, chat.Message{Role: chat.RoleUser, Content: in.req.Query, Status: chat.MessageSuccess})
	}
	if in.req.Report != nil {
		msgs = append(msgs, withResults(reportMessage(in.req.Report, in.prevAction), in.req.Report))
	}
	assistant := chat.Message{
		Role: chat.RoleAssistant, Content: step.Thought, ActionString: actionString(step), Status: chat.MessagePending,
		Usage:   &chat.Usage{PromptTokens: step.Usage.PromptTokens, CompletionTokens: step.Usage.CompletionTokens},
		Latency: step.LLMLatency, Model: step.Model,
	}
	assistant.AttachDOM(capture)
	msgs = append(msgs, assistant)
	if in.resp.Result != "" {
		msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: in.resp.Result, Status: chat.MessageSuccess})
	}
	return msgs
}

// debugEntries are the step's debug log: what the step measured, and what it changed in the
// plan when it changed it.
func (e *Engine) debugEntries(in *interaction, stepIndex int, now time.Time) []tasks.DebugEntry {
	out := []tasks.DebugEntry{{ID: uuid.NewString(), TaskID: in.task.ID, LogType: tasks.LogStep, Data: in.debugData(), CreatedAt: now}}
	if in.plan.changed() {
		out = append(out, tasks.DebugEntry{ID: uuid.NewString(), TaskID: in.task.ID, LogType: tasks.LogPlan, CreatedAt: now,
			Data: map[string]any{"step": stepIndex, "change": in.plan.String(), "plan": in.resp.Plan}})
	}
	return out
}

// alignSteps gives an ended task's steps the task's retention; a failure only shortens how long
// some steps are kept, so it is logged, not returned.
func (e *Engine) alignSteps(ctx context.Context, t tasks.Task) {
	if err := e.Tasks.AlignSteps(ctx, t.TenantID, t.ID); err != nil {
		e.logger().WarnContext(ctx, "align step retention", "taskId", t.ID, "error", err.Error())
	}
}

func (e *Engine) writeReserve() time.Duration {
	if e.WriteReserve > 0 {
		return e.WriteReserve
	}
	return DefaultWriteReserve
}

// reportMessage records the client's report on the previous action in the chat.
func reportMessage(r *tasks.Report, prev string) chat.Message {
	m := chat.Message{Role: chat.RoleSystem, ActionString: prev, Status: chat.MessageSuccess}
	if !r.Failed() {
		m.Content = "The action succeeded."
		return m
	}
	m.Status = chat.MessageFailure
	m.Content = trust.Sentence("The action failed: " + describeError(r.Error))
	if r.Error != nil {
		m.Error = &chat.ActionError{Message: r.Error.Message, Code: r.Error.Code, Action: r.Error.Action, ElementID: r.Error.ElementID}
	}
	return m
}

// recordFailure keeps a debug entry of a failed LLM call; the task itself is left untouched.
func (e *Engine) recordFailure(ctx context.Context, st state, cause error, start time.Time) {
	if st.isNew {
		return
	}
	entry := tasks.DebugEntry{
		ID: uuid.NewString(), TaskID: st.task.ID, LogType: tasks.LogLLMError, CreatedAt: e.now(),
		Data: map[string]any{"error": cause.Error(), "durationMs": e.now().Sub(start).Milliseconds(), "step": st.task.StepCount},
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.writeReserve())
	defer cancel()
	if err := e.Tasks.PutDebug(wctx, st.task.TenantID, entry); err != nil {
		e.logger().WarnContext(ctx, "debug entry of a failed step", "taskId", st.task.ID, "error", err.Error())
	}
}

func knowledgeChunks(r knowledge.Result) []KnowledgeChunk {
	out := make([]KnowledgeChunk, 0, len(r.Chunks))
	for i, c := range r.Chunks {
		kc := KnowledgeChunk{Title: c.DocumentTitle, Content: c.Content}
		if i < len(r.Citations) {
			kc.Section = r.Citations[i].Section
		}
		out = append(out, kc)
	}
	return out
}

func (in *interaction) debugData() map[string]any {
	d, know := in.decision, in.know
	return map[string]any{
		"promptChars":          len(in.system) + len(in.user),
		"promptTokensEstimate": tokens.Estimate(in.system) + tokens.Estimate(in.user),
		"promptTokensReported": d.usage.PromptTokens,
		"completionTokens":     d.usage.CompletionTokens,
		"pageTokens":           in.rendered.Tokens,
		"pageTruncated":        in.rendered.Truncated,
		"llmLatencyMs":         d.latency.Milliseconds(),
		"llmAttempts":          d.attempts,
		"correctiveRetry":      d.corrected,
		"parseErrors":          d.parseErrors,
		"modelAction":          in.storedModel,
		"knowledgeSource":      know.Debug.Source,
		"knowledgeChunks":      len(know.Chunks),
		"hasOrgKnowledge":      know.HasOrgKnowledge,
		"serverTools":          d.serverTools,
		"planChange":           in.plan.String(),
		"cache":                in.cache.Outcome(),
	}
}

// orchestratorStatus is the §4.9 state of a step that goes on: correcting after a failed
// verification, verifying when the action is a check, planning when the step made or revised
// the plan, executing otherwise.
func orchestratorStatus(d decision, chk checked, change planChange) string {
	switch {
	case chk.correction != nil:
		return StatusCorrecting
	case d.action.Name() == "verifySuccess":
		return StatusVerifying
	case change.planning():
		return StatusPlanning
	}
	return StatusExecuting
}

// toolAction describes the action for the response's toolAction.
func toolAction(a actions.Action) ToolAction {
	args := a.Args()
	for i, v := range args {
		switch v := v.(type) {
		case time.Duration:
			args[i] = v.Seconds()
		case actions.SecretRef:
			args[i] = map[string]string{"secret": string(v)}
		}
	}
	if args == nil {
		args = []any{}
	}
	return ToolAction{ToolType: string(a.Handler()), Name: a.Name(), Arguments: args}
}

// missingItems lists what only the user can supply: the reply's <Missing> lines, else the question.
func missingItems(text, question string) []string {
	var items []string
	for _, line := range strings.Split(text, "\n") {
		if item := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•")); item != "" && len(items) < 10 {
			items = append(items, shorten(item, 200))
		}
	}
	if len(items) == 0 {
		return []string{question}
	}
	return items
}
