package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/realtime"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust/gate"
)

// interaction is one step of a task as it moves through Interact's phases: begin, observe,
// decideStep, enforcePolicies, answer, commit. Each phase reads what the earlier ones left and
// adds its own part; the task's memory (state.task.Memory) is the step's working copy, stored by
// commit.
type interaction struct {
	req   Request
	start time.Time
	state
	rules *gate.Rules

	// observe: what the step sees and asks the model with.
	know         knowledge.Result
	page         *pagemodel.Page
	rendered     page.Rendered
	fingerprint  string
	tried        map[string]int
	check        checked
	prevAction   string
	userMessage  string
	system, user string

	// decideStep: the choice and where it came from.
	stream      realtime.Stream
	planBefore  *planStatuses
	cache       *actioncache.Turn
	decision    decision
	served      bool
	loginFailed bool

	// enforcePolicies: what the reply changed besides its action.
	plan         planChange
	confirmation string
	extracted    []string
	// who chose the action when the model did not (decision.chooser).
	who string

	// answer: the outcome.
	status      tasks.Status
	resp        Response
	storedModel string
}

// begin loads the task and its session, checks an approval the request carries and holds the
// task for the step; the request's secrets are taken in before anything else reads it.
func (e *Engine) begin(ctx context.Context, req Request, h *hold, start time.Time) (*interaction, error) {
	st, err := e.load(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := checkApproval(req, st.task.Memory); err != nil {
		return nil, err
	}
	rules, err := e.gateRules(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := h.leaseTask(ctx, st); err != nil {
		return nil, err
	}
	rememberNames(&st.task.Memory, req.SecretNames)
	redactRequest(&st.task.Memory.Secrets, &req)
	st.batch = req.Batch
	return &interaction{req: req, start: start, state: st, rules: rules}, nil
}

// observe takes in what the step starts from: the page, the client's report on the last action
// (verified against the page), the user's message and values.
func (e *Engine) observe(ctx context.Context, in *interaction) {
	req, mem := in.req, &in.task.Memory
	in.page = pagemodel.Parse(req.DOM)
	if last := mem.Last(); last != nil {
		in.prevAction = strings.Join(partsOf(*last), "\n")
	}
	maskResults(req.Report, mem.Last())
	in.userMessage = takeIn(mem, in.task.Query, req, in.isNew, in.task.StepCount)
	for k, v := range req.Variables {
		if mem.Variables == nil {
			mem.Variables = map[string]string{}
		}
		mem.Variables[k] = v
	}
	in.fingerprint = fingerprint(req.URL, in.page)
	in.tried = triedOn(mem, in.fingerprint)
	in.check = verifyLast(mem, in.task.ID, req.URL, in.fingerprint, in.page, req.Report, in.start)
}

// ground is what the model decides from, and only the model: the tenant's knowledge of the page,
// the page rendered for the prompt, and the prompt. A step served from the cache skips it.
func (e *Engine) ground(ctx context.Context, in *interaction) {
	req, mem := in.req, &in.task.Memory
	know, err := e.Knowledge.Resolve(ctx, req.Identity.TenantID, req.URL, req.Query)
	if err != nil {
		// Knowledge grounds the model but is not needed to act: go on without it.
		e.logger().WarnContext(ctx, "knowledge unavailable", "tenantId", req.Identity.TenantID, "error", err.Error())
		know = knowledge.Result{}
	}
	in.know = know
	prevURL := ""
	if last := mem.Last(); last != nil {
		prevURL = last.URL
	}
	in.rendered = page.Render(in.page, page.Options{Query: focusQuery(in.task.Query, mem), Budget: e.PageBudget, PreviousDigest: mem.Page,
		URLChanged: prevURL != "" && prevURL != req.URL})
	in.rendered.Text = mem.Secrets.Redact(in.rendered.Text) // a page may show back what was typed
	in.system, in.user = e.prompt(in)
}

// prompt is the step's prompt, with the notes the server adds to the model's view.
func (e *Engine) prompt(in *interaction) (system, user string) {
	mem := &in.task.Memory
	notes := append(append(append(finishNotes(mem), loopNotes(in.tried)...), revisitNotes(mem, in.req.URL)...),
		gateNotes(in.req.Mode, in.page, in.req.URL, in.rules)...)
	return BuildPrompt(PromptInput{
		Task: taskText(in.task), URL: in.req.URL, Now: in.start, Clock: in.req.Clock, Step: in.task.StepCount + 1, MaxSteps: e.maxSteps(),
		Careful: in.req.Mode == ModeCareful,
		Memory:  mem, Report: in.req.Report,
		Knowledge: knowledgeChunks(in.know), Grammar: grammarText(in.req.Batch), Page: in.rendered.Text, Secrets: mem.SecretNames,
		Notes: append(notes, in.check.notes...),
	})
}

// decideStep chooses the step's action: the answer to a failed login, a verified step of an
// earlier run (action cache, looked up first: a served step needs no prompt), or the model's choice, whose SERVER tools' findings are added to
// the task's memory here. A failed LLM call is ErrLLM, with a debug entry kept.
func (e *Engine) decideStep(ctx context.Context, in *interaction) error {
	mem := &in.task.Memory
	in.stream, in.planBefore = e.events(ctx, in.req.Identity.TenantID, in.state), snapshotPlan(mem.Plan)
	in.stream.Send(ctx, executing(in.state, mem))
	in.cache = e.openCache(ctx, in.req, in.state, in.page, in.userMessage)
	if in.decision, in.loginFailed = checkLogin(mem, loginView(in.req.URL, in.page)); in.loginFailed {
		return nil
	}
	if in.decision, in.served = e.fromCache(ctx, in.cache, in.req, &in.task.Memory, in.page, in.tried); in.served {
		return nil
	}
	e.ground(ctx, in)
	d, err := e.decide(ctx, in.question())
	if err != nil {
		e.recordFailure(ctx, in.state, err, in.start)
		return fmt.Errorf("%w: %w", ErrLLM, err)
	}
	d.learned.remember(mem)
	in.decision = d
	return nil
}

func (in *interaction) question() question {
	mem := &in.task.Memory
	return question{
		system: in.system, user: in.user, page: in.page, pageURL: in.req.URL, tried: in.tried,
		variables: mem.Variables, secrets: mem.SecretNames, batch: in.batch, tenantID: in.task.TenantID, taskID: in.task.ID,
	}
}

// enforcePolicies applies the reply's plan blocks and the server's rules to the decision (a
// plan's branch, verification before finish, batch limits, secrets, the payment gate), then
// records what the step expects, extracted and leaves in the cache's trail.
func (e *Engine) enforcePolicies(in *interaction) {
	mem, d := &in.task.Memory, in.decision
	in.plan = updatePlan(mem, d.sections)
	d = applyBranch(d, in.plan.outcome(), mem.Plan)
	d = e.applyPolicies(d, mem)
	d = clearBlockers(fitBatch(d), in.page)
	guardDecision(&mem.Secrets, &d, in.page)
	d, in.confirmation = holdBatch(d, in.req, mem, in.page, in.task.TenantID+"/"+in.task.ID, in.rules)
	guardDecision(&mem.Secrets, &d, in.page) // again: a held payment's question may quote a typed value
	in.userMessage = forgetTypedSecrets(mem, in.userMessage)
	in.check.fold(d)
	in.who = d.chooser(&mem.Secrets)
	mem.Expected = parseExpectation(d.sections["Expect"])
	in.extracted = extract(mem, d.sections["Extract"])
	in.decision = d
	mem.Cache = in.cache.Record(in.cacheDecided())
}

// statuses are the task's status after the step and the status the response reports.
func (in *interaction) statuses() (tasks.Status, string) {
	switch in.decision.action.Effect() {
	case actions.Completes:
		return tasks.StatusCompleted, string(tasks.StatusCompleted)
	case actions.Fails:
		return tasks.StatusFailed, string(tasks.StatusFailed)
	case actions.AsksUser:
		return tasks.StatusActive, StatusNeedsUserInput
	}
	return tasks.StatusActive, orchestratorStatus(in.decision, in.check, in.plan)
}

// answer settles the step's status and builds the response the client gets.
func (e *Engine) answer(in *interaction) {
	d, mem := in.decision, &in.task.Memory
	var status string
	in.status, status = in.statuses()
	if in.status == tasks.StatusCompleted {
		in.task.Result, _ = d.action.Text()
		completePlan(mem.Plan)
	}
	resp := e.response(in, status)
	if status == StatusNeedsUserInput {
		q, _ := d.action.Text()
		resp.UserQuestion, resp.MissingInformation = q, missingItems(d.sections["Missing"], q)
		resp.UserRequest = userRequest(q, resp.MissingInformation, in.loginFailed)
		mem.Pending, mem.PendingByServer = q, in.who != ""
	}
	resp.Metrics.DurationMs = e.now().Sub(in.start).Milliseconds()
	in.storedModel = storedAction(d.modelAction, in.page)
	resp.LogAction = storedAction(resp.Action, in.page)
	if in.check.correction != nil {
		in.check.correction.Action = resp.LogAction
	}
	if in.req.Debug {
		resp.DebugInfo = map[string]any{
			"knowledge": in.know.Debug, "promptChars": len(in.system) + len(in.user), "pageTokens": in.rendered.Tokens,
			"pageElements": in.rendered.ElementsTotal, "pageElementsShown": in.rendered.ElementsShown,
			"modelAction": in.storedModel, "parseErrors": d.parseErrors, "cache": in.cache.Outcome(),
		}
	}
	in.resp = resp
}

// response is the step's answer with the given status, its metrics and the plan's progress.
func (e *Engine) response(in *interaction, status string) Response {
	d, mem, stepNumber := in.decision, &in.task.Memory, in.task.StepCount+1
	resp := Response{
		Thought: d.thought, Action: d.action.String(), Result: in.task.Result,
		Usage:  &Usage{PromptTokens: d.usage.PromptTokens, CompletionTokens: d.usage.CompletionTokens},
		TaskID: in.task.ID, SessionID: in.session.ID, HasOrgKnowledge: in.know.HasOrgKnowledge,
		Status: status, CurrentStep: stepNumber,
		Metrics: Metrics{
			LLMLatencyMs: d.latency.Milliseconds(), LLMAttempts: d.attempts,
			PromptTokens: d.usage.PromptTokens, CompletionTokens: d.usage.CompletionTokens,
			StepCount: stepNumber, MaxSteps: e.maxSteps(), PageTokens: in.rendered.Tokens,
			PageTruncated: in.rendered.Truncated, CorrectiveRetry: d.corrected, Cache: in.cache.Outcome().Status,
		},
		ExpectedOutcome: mem.Expected, Verification: in.check.verification, Correction: in.check.correction,
		ToolAction: toolAction(d.action), ExtractedVariables: mem.Variables, ConfirmationID: in.confirmation,
	}
	if in.req.Batch {
		resp.Actions = batchStrings(d.batch)
	}
	if p := mem.Plan; p != nil {
		resp.Plan, resp.TotalSteps = p, len(p.Steps)
		resp.CurrentStep = min(p.Current+1, len(p.Steps))
		resp.StepProgress = &StepProgress{CurrentStep: resp.CurrentStep, TotalSteps: len(p.Steps), StepDescription: p.Steps[resp.CurrentStep-1].Description}
	}
	return resp
}

// commit remembers the step in the task's memory and stores it all or nothing (store); a twin
// request that committed first is answered with its response. Subscribers hear of the step once
// it is stored.
func (e *Engine) commit(ctx context.Context, in *interaction) (Response, error) {
	step := e.stepRecord(in)
	mem := &in.task.Memory
	mem.Remember(tasks.Brief{Index: step.Index, Thought: step.Thought, Action: step.Action, Actions: step.Actions, URL: in.req.URL, Fingerprint: in.fingerprint, Note: in.decision.note,
		PlanStep: planStepOf(mem.Plan, in.who), Server: in.who})
	mem.Page = in.page.Digest()
	if err := e.store(ctx, in, step); err != nil {
		if errors.Is(err, tasks.ErrIdempotencyRace) {
			// The same request committed first: answer what it answered.
			if resp, found, rerr := e.replay(ctx, in.req.Identity.TenantID, in.req); found || rerr != nil {
				return resp, rerr
			}
		}
		return Response{}, err
	}
	e.learnFromCache(ctx, in.cache, in.status)
	in.stream.Send(ctx, stepEvents(in.state, in.planBefore, mem, in.resp, in.extracted)...)
	return in.resp, nil
}

// stepRecord is the step as the task's history keeps it.
func (e *Engine) stepRecord(in *interaction) tasks.Step {
	d, req := in.decision, in.req
	step := tasks.Step{
		Index: in.task.StepCount, Thought: d.thought, Action: in.resp.LogAction, Actions: storedBatch(d.batch, in.page),
		PreviousReport: req.Report, UserMessage: in.userMessage, URL: req.URL,
		Usage: tasks.Usage{PromptTokens: d.usage.PromptTokens, CompletionTokens: d.usage.CompletionTokens},
		Model: d.model, LLMAttempts: d.attempts, LLMLatency: d.latency, Duration: e.now().Sub(in.start),
	}
	if d.modelAction != in.resp.Action {
		step.ModelAction = in.storedModel
	}
	return step
}
