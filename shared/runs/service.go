package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/trust"
	"github.com/screenagent/backend/shared/trust/gate"
)

// Store keeps runs: a header per run and its history entries.
type Store interface {
	// Create stores a new run and returns it with its timestamps.
	Create(ctx context.Context, run Run) (Run, error)
	// Get returns the tenant's run; another tenant's or an expired run is ErrNotFound.
	Get(ctx context.Context, tenantID, runID string) (Run, error)
	// Entries returns the run's last entries (all when last is 0), oldest first.
	Entries(ctx context.Context, tenantID, runID string, last int) ([]Entry, error)
	// Save replaces the header prev (as it was read) with next, appends entry when given and
	// records idem when given, all or nothing. ErrConflict when the run changed since it was
	// read, ErrIdempotencyRace when the key was recorded meanwhile.
	Save(ctx context.Context, prev, next Run, entry *Entry, idem *IdempotencyRecord) error
	// GetIdempotency returns the response recorded under the run, scope and key, or ErrNotFound.
	GetIdempotency(ctx context.Context, tenantID, runID, scope, key string) (IdempotencyRecord, error)
	// Lease holds the run as it was read until until (ErrConflict when it is held or changed),
	// so that of concurrent steps only one pays for an LLM call; Save ends the lease, Release
	// ends it otherwise.
	Lease(ctx context.Context, run Run, leaseID string, until time.Time) error
	Release(ctx context.Context, tenantID, runID, leaseID string) error
}

// leaseDuration outlives any request (a function times out at 29 s), so a live holder never loses
// its lease, and one that died blocks its run for at most this long.
const leaseDuration = 35 * time.Second

// IdempotencyRecord is a response stored under a request's Idempotency-Key.
type IdempotencyRecord struct {
	// Scope is the route (step or answer): one key never answers for another route.
	Scope       string
	Key         string
	RequestHash string
	Body        []byte
}

// Idempotency scopes.
const (
	ScopeStep   = "step"
	ScopeAnswer = "answer"
)

// GateSettings reads a tenant's additions to the security gate: its own risky words and URL
// patterns (stored with the tenant's settings).
type GateSettings interface {
	GateCustom(ctx context.Context, tenantID string) (gate.Custom, error)
}

// Service runs the run API.
type Service struct {
	Store Store
	LLM   llm.Client
	// Gate gives the tenants' additions to the security gate; nil means the built-in rules only.
	Gate GateSettings
	// Events publishes the run's real-time events; nil publishes none.
	Events Events
	// Cache serves repeated runs without the model; nil serves nothing.
	Cache ActionCache
	// Model names the configured model for records (the reply's own model wins when given).
	Model string
	// MaxSteps bounds new runs (DefaultMaxSteps when 0).
	MaxSteps int
	// WriteReserve is kept from the request's deadline for storing the step after the LLM.
	WriteReserve time.Duration
	// CorrectionMinBudget is the time a corrective retry needs; with less left it is skipped.
	CorrectionMinBudget time.Duration
	// LLMBudget bounds the LLM when the request has no deadline.
	LLMBudget time.Duration
	Now       func() time.Time
	Logger    *slog.Logger
}

// Defaults of the service's time budget: the function times out at 29 s (API Gateway at 30 s).
const (
	DefaultWriteReserve        = 3 * time.Second
	DefaultCorrectionMinBudget = 5 * time.Second
	DefaultLLMBudget           = 25 * time.Second
)

// MaxTask bounds a run's task, in characters.
const MaxTask = 10_000

// maxReplyTokens bounds the model's reply: one JSON object.
const maxReplyTokens = 1024

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// StartRequest is one POST /agent/run/start, checked by the run API's edge (runapi.DecodeStart).
type StartRequest struct {
	TenantID string
	UserID   string
	Task     string
	Mode     Mode
	// Timezone and Locale are the user's, canonical ("" when not given).
	Timezone    string
	Locale      string
	SecretNames []trust.NamedSecret
	// Batch: the client declared the actionBatch capability.
	Batch bool
}

// Start creates a run for the tenant's user. An empty mode is careful: the gate is on unless
// the client asks for autonomy.
func (s *Service) Start(ctx context.Context, req StartRequest) (StartResponse, error) {
	if req.Mode == "" {
		req.Mode = ModeCareful
	}
	maxSteps := s.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	run, err := s.Store.Create(ctx, Run{
		ID: uuid.NewString(), TenantID: req.TenantID, UserID: req.UserID, Task: req.Task, Mode: req.Mode,
		Status: StatusCreated, MaxSteps: maxSteps, Timezone: req.Timezone, Locale: req.Locale, SecretNames: req.SecretNames, Batch: req.Batch,
	})
	if err != nil {
		return StartResponse{}, err
	}
	return StartResponse{Success: true, RunID: run.ID, State: stateOf(run)}, nil
}

// StepRequest is one POST /agent/run/{runId}/step.
type StepRequest struct {
	TenantID string
	UserID   string
	RunID    string
	// Snapshot is the page now; nil keeps the last one.
	Snapshot *Snapshot
	// LastActionResult is the result of the last step's action; nil when none.
	LastActionResult *Result
	// LastActionResults are the results of each call of the last step's batch, in order.
	LastActionResults []Result
	// SecretNames are the secrets the client holds; nil keeps the run's.
	SecretNames    []trust.NamedSecret
	IdempotencyKey string
	RequestHash    string
	// NoCache opts the step out of the action cache (cache: false).
	NoCache bool
}

// Step decides the run's next action in the order of PROXY_SERVER_ARCHITECTURE.md §4.2: max
// steps, the LLM's choice, loop detection, the security gate, self-reflection. It stores the
// step, or the run's end, in one conditional write; on an error the run is unchanged.
func (s *Service) Step(ctx context.Context, req StepRequest) (_ StepResponse, err error) {
	in, replayed, found, err := s.beginStep(ctx, req)
	if found || err != nil {
		return replayed, err
	}
	in.observe()
	if in.run.CurrentStep >= in.run.MaxSteps {
		return s.stop(ctx, in.idem, in.run, in.next, in.result, "Maximum steps reached", StepMetrics{})
	}
	if err := s.recall(ctx, in); err != nil {
		return StepResponse{}, err
	}
	if in.page != nil {
		leaseID := uuid.NewString()
		if replayed, found, err := s.lease(ctx, in.idem, in.run, leaseID); found || err != nil {
			return replayed, err
		}
		// The step's Save ends the lease; any other way out releases it for the retry.
		defer func() {
			if err != nil {
				s.release(ctx, in.run, leaseID)
			}
		}()
		if err := s.decideStep(ctx, in); err != nil {
			return StepResponse{}, err
		}
	}
	if reason := s.applyPolicies(in); reason != "" {
		return s.stop(ctx, in.idem, in.run, in.next, in.result, reason, in.metrics)
	}
	return s.commit(ctx, in)
}

// stop ends the run with status error and reason, keeping the last result for the history.
func (s *Service) stop(ctx context.Context, idem idemRequest, prev, next Run, result *Result, reason string, m StepMetrics) (StepResponse, error) {
	next.Status, next.Error, next.LastResult = StatusError, reason, result
	next.PendingQuestion, next.PendingTool, next.PendingConfirmation, next.PendingTools = "", nil, "", nil
	return s.save(ctx, idem, prev, next, nil, StepResponse{Action: ActionError, Error: reason, State: stateOf(next), Metrics: m})
}

// AnswerRequest is one POST /agent/run/{runId}/answer.
type AnswerRequest struct {
	TenantID string
	UserID   string
	RunID    string
	Approved bool
	Answer   string
	// ConfirmationID approves the action the security gate held: it must be the pending
	// confirmation's id, so that an approval applies to that action only.
	ConfirmationID string
	// SecretNames are the secrets the client holds (an answer to a credentials request names
	// them); nil keeps the run's.
	SecretNames    []trust.NamedSecret
	IdempotencyKey string
	RequestHash    string
}

// Answer takes the user's reply to the pending question. Declining cancels the run. Approving
// continues with the next action: the call the security gate held, or observe after the model's
// own question, so the next step sees the page again; a text answer reaches the next prompt.
func (s *Service) Answer(ctx context.Context, req AnswerRequest) (StepResponse, error) {
	run, err := s.load(ctx, req.TenantID, req.UserID, req.RunID)
	if err != nil {
		return StepResponse{}, err
	}
	idem := idemRequest{ScopeAnswer, req.TenantID, req.RunID, req.IdempotencyKey, req.RequestHash}
	if resp, found, err := s.replay(ctx, idem); found || err != nil {
		return resp, err
	}
	if err := checkAnswerable(run, req); err != nil {
		return StepResponse{}, err
	}
	text := run.Secrets.Redact(req.Answer)
	reply := answerResult(run, req.Approved, text)
	answer := &UserAnswer{Approved: req.Approved, Text: text, UserID: req.UserID}
	next := run
	next.PendingQuestion, next.PendingTool, next.PendingConfirmation, next.PendingTools = "", nil, "", nil
	if req.SecretNames != nil {
		next.SecretNames = req.SecretNames
	}
	if !req.Approved {
		next.Status, next.Error, next.LastResult, next.LastAnswer = StatusCancelled, "Cancelled: the user declined.", reply, answer
		return s.save(ctx, idem, run, next, nil, StepResponse{Action: ActionError, Error: next.Error, State: stateOf(next)})
	}
	if run.CurrentStep >= run.MaxSteps {
		return s.stop(ctx, idem, run, next, reply, "Maximum steps reached", StepMetrics{})
	}
	entry := resumeEntry(run, &next, reply, answer)
	next.Status, next.CurrentStep = StatusRunning, entry.StepNumber
	resp := StepResponse{Action: ActionExecuteTool, Tool: toolView(entry.Tool), State: stateOf(next)}
	if run.PendingTool != nil && actioncache.LastServed(run.CacheTrail) {
		// The approved call is the one the cache served and the gate held.
		resp.Metrics.Cache = actioncache.Hit
	}
	if run.Batch {
		resp.Tools = toolViews(callsOf(entry))
	}
	return s.save(ctx, idem, run, next, &entry, resp)
}

// checkAnswerable refuses an answer to a run that asked nothing, and an approval that names
// another action than the one held.
func checkAnswerable(run Run, req AnswerRequest) error {
	switch {
	case run.Status.Finished():
		return ErrFinished
	case run.Status != StatusWaitingUser:
		return ErrNotWaiting
	case req.Approved && run.PendingConfirmation != "" && req.ConfirmationID != run.PendingConfirmation:
		return invalid("confirmationId", "must be the confirmationId of the pending action (%s), which the question named; an approval applies to that action only", run.PendingConfirmation)
	}
	return nil
}

// answerResult is the user's answer as the result of the pending call, for the next prompt. Only
// a held action is approved; the model's own question is answered.
func answerResult(run Run, approved bool, text string) *Result {
	reply := &Result{Success: approved, Message: "The user approved."}
	switch {
	case !approved:
		reply.Message = "The user declined."
	case run.PendingTool == nil:
		reply.Message = "The user answered."
	}
	if text != "" {
		reply.Message += " Their answer: " + text
	}
	return reply
}

// resumeEntry is the step an approval continues with: the held call (or batch), or observe after
// the model's own question. A held type into a secret field is observed instead, and next
// remembers its approval (approveSecretType).
func resumeEntry(run Run, next *Run, reply *Result, answer *UserAnswer) Entry {
	tool := Tool{Name: ToolObserve}
	if run.PendingTool != nil {
		tool = *run.PendingTool
	}
	tool, pending := approveSecretType(next, tool, run.PendingTools, reply)
	entry := Entry{
		StepNumber: run.CurrentStep + 1, Action: tool.Name, Tool: &tool, Tools: pending, PreviousResult: reply,
		UserAnswer: answer, PageHash: fingerprint(run.CurrentSnapshot),
	}
	if run.CurrentSnapshot != nil {
		entry.URL = run.CurrentSnapshot.URL
	}
	return entry
}

// Cancel cancels an unfinished run. A finished run (completed, failed or already cancelled) is
// ErrFinished: cancelling it would change nothing, and answering success would claim it did.
func (s *Service) Cancel(ctx context.Context, tenantID, userID, runID string) error {
	for range 3 {
		run, err := s.load(ctx, tenantID, userID, runID)
		if err != nil {
			return err
		}
		if run.Status.Finished() {
			return ErrFinished
		}
		next := run
		next.Status, next.Error = StatusCancelled, "Cancelled by the user."
		next.PendingQuestion, next.PendingTool, next.PendingConfirmation, next.PendingTools = "", nil, "", nil
		err = s.write(ctx, func(ctx context.Context) error { return s.Store.Save(ctx, run, next, nil, nil) })
		if !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return ErrConflict
}

// Get returns the run's full state.
func (s *Service) Get(ctx context.Context, tenantID, userID, runID string) (GetResponse, error) {
	run, err := s.load(ctx, tenantID, userID, runID)
	if err != nil {
		return GetResponse{}, err
	}
	entries, err := s.Store.Entries(ctx, tenantID, runID, 0)
	if err != nil {
		return GetResponse{}, err
	}
	return GetResponse{Success: true, State: runView(run, entries)}, nil
}

// gateRules are the security gate's rules for the tenant.
func (s *Service) gateRules(ctx context.Context, tenantID string) (*gate.Rules, error) {
	if s.Gate == nil {
		return gate.Default(), nil
	}
	c, err := s.Gate.GateCustom(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("gate settings of tenant %s: %w", tenantID, err)
	}
	return gate.New(c), nil
}

// load returns the user's run. Another user's run in the same tenant is ErrNotFound, exactly like
// a run that does not exist, so that its id tells nothing.
func (s *Service) load(ctx context.Context, tenantID, userID, runID string) (Run, error) {
	run, err := s.Store.Get(ctx, tenantID, runID)
	if err != nil {
		return Run{}, err
	}
	if run.UserID != userID {
		return Run{}, ErrNotFound
	}
	return run, nil
}

// idemRequest identifies a request for idempotent replay; no key means none.
type idemRequest struct {
	scope, tenantID, runID, key, hash string
}

// replay answers a request whose Idempotency-Key was seen: the stored response for the same
// body, ErrIdempotencyMismatch for another.
func (s *Service) replay(ctx context.Context, r idemRequest) (StepResponse, bool, error) {
	if r.key == "" {
		return StepResponse{}, false, nil
	}
	rec, err := s.Store.GetIdempotency(ctx, r.tenantID, r.runID, r.scope, r.key)
	if errors.Is(err, ErrNotFound) {
		return StepResponse{}, false, nil
	}
	if err != nil {
		return StepResponse{}, false, err
	}
	if rec.RequestHash != r.hash {
		return StepResponse{}, true, ErrIdempotencyMismatch
	}
	var resp StepResponse
	if err := json.Unmarshal(rec.Body, &resp); err != nil {
		return StepResponse{}, true, fmt.Errorf("decode stored response: %w", err)
	}
	resp.Metrics.Replayed = true
	return resp, true, nil
}

// save stores the transition with the response under the request's key, if any. A concurrent
// request with the same key that committed first is answered with its response.
func (s *Service) save(ctx context.Context, idem idemRequest, prev, next Run, entry *Entry, resp StepResponse) (StepResponse, error) {
	var rec *IdempotencyRecord
	if idem.key != "" {
		body, err := json.Marshal(resp)
		if err != nil {
			return StepResponse{}, fmt.Errorf("encode response: %w", err)
		}
		rec = &IdempotencyRecord{Scope: idem.scope, Key: idem.key, RequestHash: idem.hash, Body: body}
	}
	err := s.write(ctx, func(ctx context.Context) error { return s.Store.Save(ctx, prev, next, entry, rec) })
	if errors.Is(err, ErrIdempotencyRace) {
		if replayed, found, rerr := s.replay(ctx, idem); found || rerr != nil {
			return replayed, rerr
		}
		return StepResponse{}, ErrConflict
	}
	if err != nil {
		return StepResponse{}, err
	}
	s.publish(ctx, next, entry, resp)
	return resp, nil
}

// write runs a store write that must land even when the client has gone, within its own deadline.
func (s *Service) write(ctx context.Context, f func(context.Context) error) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orDefault(s.WriteReserve, DefaultWriteReserve))
	defer cancel()
	return f(wctx)
}

// adjusting returns, for the prompt, the reflection made at the last step when it asked for an
// adjustment: it is shown once, on the step after it, not on every later one.
func adjusting(rs []Reflection, lastStep int) *Reflection {
	if n := len(rs); n > 0 && rs[n-1].ShouldAdjust && rs[n-1].StepNumber == lastStep {
		return &rs[n-1]
	}
	return nil
}

// llmReason is a failed call's cause as the client may see it: the status or a timeout, never
// the provider's text.
func llmReason(err error) string {
	var e *llm.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no reply in time."
	case errors.As(err, &e) && e.StatusCode != 0:
		return fmt.Sprintf("the provider answered with status %d.", e.StatusCode)
	}
	return "it could not be reached."
}
