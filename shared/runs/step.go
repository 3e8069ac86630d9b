package runs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/trust/gate"
)

// runStep is one Step call as it moves through its phases: beginStep, observe, recall,
// decideStep, applyPolicies, commit. Each phase reads what the earlier ones left and adds its
// own part; next is the run as the step will save it, run the run as it was read.
type runStep struct {
	req  StepRequest
	idem idemRequest
	run  Run
	next Run

	// observe: the page and the last action's result.
	page   *Snapshot
	result *Result

	// recall: the run's recent history and the tenant's gate.
	history []Entry
	results []*Result
	rules   *gate.Rules

	// decideStep: the choice and where it came from.
	cache    *cacheTurn
	decision decision
	served   bool

	// applyPolicies: the step as the client gets it and the run keeps it.
	metrics StepMetrics
	// sent is the call as the client gets it (sentAll: every call of a batch).
	sent    *Tool
	sentAll []Tool
	entry   Entry
}

// beginStep loads the user's run and answers a replayed request with its stored response
// (found); a finished run or one waiting for the user takes no step.
func (s *Service) beginStep(ctx context.Context, req StepRequest) (*runStep, StepResponse, bool, error) {
	// Ownership first: a stored response is only ever replayed to the run's own user.
	run, err := s.load(ctx, req.TenantID, req.UserID, req.RunID)
	if err != nil {
		return nil, StepResponse{}, false, err
	}
	idem := idemRequest{ScopeStep, req.TenantID, req.RunID, req.IdempotencyKey, req.RequestHash}
	if resp, found, err := s.replay(ctx, idem); found || err != nil {
		return nil, resp, found, err
	}
	switch {
	case run.Status.Finished():
		return nil, StepResponse{}, false, ErrFinished
	case run.Status == StatusWaitingUser:
		return nil, StepResponse{}, false, ErrWaitingUser
	}
	in := &runStep{req: req, idem: idem, run: run, next: run}
	// Without a page there is nothing to decide on: the first move is to look (no LLM call).
	in.decision = decision{reply: Reply{Type: ReplyToolCall, Tool: Tool{Name: ToolObserve}, Thought: "No page has been observed yet."}}
	return in, StepResponse{}, false, nil
}

// observe takes in the request: the page (none keeps the last one), the secrets the client
// holds, and the last action's result with typed secrets redacted.
func (in *runStep) observe() {
	if in.req.Snapshot != nil {
		in.next.CurrentSnapshot = redactSnapshot(&in.run.Secrets, in.req.Snapshot)
	}
	if in.req.SecretNames != nil {
		in.next.SecretNames = in.req.SecretNames
	}
	in.result = redactResult(&in.next, withParts(in.req.LastActionResult, in.req.LastActionResults))
	if in.run.CurrentStep == 0 {
		in.result = nil // no action has been taken yet
	}
	in.page = in.next.CurrentSnapshot
}

// recall reads what the decision and the policies need besides the request: the run's recent
// history and the tenant's gate rules. Both are read before the LLM call, so that failing to
// read them costs no call; without the rules the gate would let through what the tenant asked
// to hold, so a failure fails the step.
func (s *Service) recall(ctx context.Context, in *runStep) error {
	history, err := s.Store.Entries(ctx, in.req.TenantID, in.req.RunID, historyInPrompt)
	if err != nil {
		return err
	}
	history = redactEntries(&in.run, history)
	rules, err := s.gateRules(ctx, in.req.TenantID)
	if err != nil {
		return err
	}
	in.history, in.rules, in.results = history, rules, resultsOf(history, in.result)
	return nil
}

// decideStep chooses the next action: a verified step of an earlier run (action cache) or the
// model's choice. No usable reply is an error and leaves the run as it was: the client retries.
func (s *Service) decideStep(ctx context.Context, in *runStep) error {
	run := in.run
	// The cache first: a served step needs no prompt. It goes through the same loop rules, gate
	// and reflection as the model's.
	in.cache = s.openCache(ctx, in.req, run, in.result, in.page, in.history)
	if in.decision, in.served = s.fromCache(ctx, in.cache, run.Batch, in.next.SecretNames, in.page); in.served {
		return nil
	}
	system, user := buildPrompt(promptInput{
		Task: run.Secrets.Redact(run.Task), History: in.history, Results: in.results, Earlier: run.CurrentStep - len(in.history),
		Page: in.page, Reflection: adjusting(run.Reflections, run.CurrentStep), Secrets: in.next.SecretNames,
		Step: run.CurrentStep + 1, MaxSteps: run.MaxSteps, Now: s.now(), Clock: run.clock(), Batch: run.Batch,
		Careful: run.Mode == ModeCareful, GateNotice: gateNotice(run.Mode, in.page, in.rules),
	})
	d, err := s.decide(ctx, system, user, in.page, in.next.SecretNames, &in.next.Secrets, run.Batch)
	in.decision = d
	if err == nil && d.invalid == "" {
		return nil
	}
	if errors.Is(err, llm.ErrNotConfigured) {
		// Not an outage: the cold start logged what to set, and the edge answers with it.
		return err
	}
	reason := "The model did not choose a valid action: " + d.invalid
	if err != nil {
		reason = "The language model is unavailable: " + llmReason(err)
	}
	s.logger().WarnContext(ctx, "run step: no usable reply", "runId", run.ID, "reason", reason, "attempts", d.attempts)
	return &LLMError{Message: reason + " The run is unchanged: retry the step.", Err: err}
}

// applyPolicies turns the decision into the step's entry and the run's next state under the
// server's rules: typed secrets kept out of the run, loop detection, the security gate and
// self-reflection. It returns why the run must stop instead ("" to go on).
func (s *Service) applyPolicies(in *runStep) (stopReason string) {
	d := &in.decision
	in.metrics = d.metrics()
	kept := in.keepCalls()
	redactReply(&in.next, &d.reply)
	in.metrics.Cache = in.cache.status()
	in.record(kept)
	if d.reply.Type != ReplyFinal {
		if reason, loop := detectLoop(in.history, in.entry); loop {
			return "Stopped: loop detected: " + reason
		}
	}
	if d.reply.Type == ReplyToolCall {
		scope := fmt.Sprintf("%s/%s/%d", in.run.TenantID, in.run.ID, in.entry.StepNumber)
		gateCalls(&in.entry, &in.next, in.page, in.rules, in.run.Mode, scope, d.reply.Payment)
	}
	in.next.ApprovedSecretType = nil // an approval holds for the step right after it only
	if d.reply.Type != ReplyFinal && dueReflection(in.entry.StepNumber, in.run.Reflections) {
		return s.reflect(in)
	}
	return ""
}

// keepCalls are the decided calls as the run keeps them: the client gets each call as decided
// (sent), the run keeps it with a secret typed into a secret field masked. Every call of a batch
// is kept as a single call is.
func (in *runStep) keepCalls() []Tool {
	r := &in.decision.reply
	if r.Type != ReplyToolCall {
		return nil
	}
	in.sent, in.sentAll = &r.Tool, []Tool{r.Tool}
	if len(r.Tools) > 1 {
		in.sentAll = r.Tools
	}
	kept := make([]Tool, 0, len(in.sentAll))
	for i := range in.sentAll {
		kept = append(kept, *storedTool(&in.next, &in.sentAll[i], in.page))
	}
	return kept
}

// record writes the decision into the step's entry and the run's next status.
func (in *runStep) record(kept []Tool) {
	d := in.decision
	in.entry = Entry{
		StepNumber: in.run.CurrentStep + 1, Thought: d.reply.Thought, PreviousResult: in.result,
		Model: d.model, Usage: d.usage, LLMAttempts: d.attempts, LLMLatency: d.latency, PageHash: fingerprint(in.page),
	}
	if in.page != nil {
		in.entry.URL = in.page.URL
	}
	switch d.reply.Type {
	case ReplyFinal:
		in.entry.Action, in.entry.Answer = ToolFinish, d.reply.Answer
		in.next.Status, in.next.Result = StatusCompleted, d.reply.Answer
	case ReplyAskUser:
		in.entry.Action, in.entry.Question = ToolAskUser, d.reply.Question
		in.next.Status, in.next.PendingQuestion = StatusWaitingUser, d.reply.Question
	default:
		in.entry.Action, in.entry.Tool = kept[0].Name, &kept[0]
		if len(kept) > 1 {
			in.entry.Tools = kept
		}
		in.next.Status = StatusRunning
	}
}

// reflect adds the self-reflection due at this step; two of low efficiency in a row stop the run.
func (s *Service) reflect(in *runStep) (stopReason string) {
	prev := in.run.Reflections
	r := analyzeProgress(append(in.history, in.entry), append(in.results, nil), s.now())
	in.next.Reflections = append(append([]Reflection(nil), prev...), r)
	if n := len(prev); r.Efficiency == EfficiencyLow && !r.advancing && n > 0 && prev[n-1].Efficiency == EfficiencyLow {
		return fmt.Sprintf("Stopped: low efficiency in two self-reflections in a row (steps %d and %d): %s",
			prev[n-1].StepNumber, r.StepNumber, strings.Join(r.Issues, "; "))
	}
	return ""
}

// commit saves the run's next state with the step's entry and the response, all or nothing.
func (s *Service) commit(ctx context.Context, in *runStep) (StepResponse, error) {
	in.next.CurrentStep = in.entry.StepNumber
	in.next.CacheTrail = in.cache.record(in.run.CacheTrail, in.entry, in.sentAll, in.served)
	resp, err := s.save(ctx, in.idem, in.run, in.next, &in.entry, in.answer())
	if err == nil {
		s.learnFromCache(ctx, in.cache, in.next.Status)
	}
	return resp, err
}

// answer is the response the client gets: the action to run, the question to ask or the result.
func (in *runStep) answer() StepResponse {
	resp := StepResponse{State: stateOf(in.next), Metrics: in.metrics}
	switch in.entry.Action {
	case ToolFinish:
		resp.Action, resp.Result = ActionFinish, in.entry.Answer
	case ToolAskUser:
		resp.Action, resp.Question, resp.ConfirmationID = ActionAskUser, in.entry.Question, in.next.PendingConfirmation
		resp.UserRequest = askKind(in.entry)
	default:
		resp.Action, resp.Tool = ActionExecuteTool, toolView(in.sent)
		if in.run.Batch {
			resp.Tools = toolViews(in.sentAll)
		}
	}
	return resp
}

// release ends the step's lease on the run when the step failed, so the retry can go on.
func (s *Service) release(ctx context.Context, run Run, leaseID string) {
	if err := s.Store.Release(context.WithoutCancel(ctx), run.TenantID, run.ID, leaseID); err != nil {
		s.logger().WarnContext(ctx, "release run lease", "runId", run.ID, "error", err.Error())
	}
}
