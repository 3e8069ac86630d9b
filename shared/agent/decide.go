package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// decision is the model's choice for a step, after parsing and the server's policies.
type decision struct {
	thought string
	action  actions.Action
	// batch are the actions the client runs in order; batch[0] is action.
	batch []actions.Action
	// sections are the reply's optional blocks (plan, expectation, evaluation, …).
	sections map[string]string
	// modelAction is what the model answered, before any policy replaced it.
	modelAction string
	// note says what the server did about the choice, for later prompts ("" for nothing).
	note string
	// serverTools lists the SERVER tools run within the step.
	serverTools []string
	usage       llm.Usage
	latency     time.Duration
	attempts    int
	model       string
	corrected   bool
	parseErrors []string
	// unparsed are the values refused replies may have meant for a secret field (unparsedValues).
	unparsed []string
	// learned is what the SERVER tools run within the step add to the task's memory.
	learned learned
}

// learned is what SERVER tools found during decide, applied to the task's memory by the step
// (remember) rather than written by the tools themselves.
type learned struct {
	searches []tasks.SearchNote
	// values are extractValue's key/value pairs in the order they were stored.
	values [][2]string
}

// remember adds what the SERVER tools found to the task's memory.
func (l learned) remember(mem *tasks.Memory) {
	for _, n := range l.searches {
		mem.AddSearch(n)
	}
	for _, kv := range l.values {
		if mem.Variables == nil {
			mem.Variables = map[string]string{}
		}
		mem.Variables[kv[0]] = kv[1]
	}
}

// question is what decide asks the model and checks its replies against.
type question struct {
	system, user string
	page         *pagemodel.Page
	pageURL      string
	// tried counts the actions already tried on this page, for the loop guard.
	tried map[string]int
	// variables are the task's values (read only: decide works on a copy); secrets the client's.
	variables map[string]string
	secrets   []trust.NamedSecret
	// batch: the client runs batches of actions.
	batch            bool
	tenantID, taskID string
}

const (
	// maxReplyTokens bounds the model's reply: a thought, one action and the optional blocks.
	maxReplyTokens = 1024
	// maxServerTools bounds the SERVER tools one step runs before a DOM action must come.
	maxServerTools = 3
)

// decide asks the model for the next action. A reply that does not parse, names an element the
// page lacks, uses an unknown variable or repeats an action the loop guard refuses gets one
// corrective retry that quotes the problem (llm.CompleteParsed). A second bad reply becomes
// fail("…") with the reason, so the step still ends cleanly, except for a model that insists on
// a refused loop: then the user is asked what to do rather than burning steps. A SERVER tool
// (extractValue) is run here and the model asked again, at most maxServerTools times and while
// the deadline allows. Only a failed LLM call is an error.
func (e *Engine) decide(ctx context.Context, q question) (decision, error) {
	llmCtx, cancel := llm.WithReserve(ctx, e.writeReserve(), 0)
	defer cancel()
	c := newConversation(q, e.Model)
	minBudget := e.correctionMinBudget()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: q.system}, {Role: llm.RoleUser, Content: q.user}}
	for round := 0; ; round++ {
		p, err := llm.CompleteParsed(llmCtx, e.LLM, llm.Request{Messages: msgs, MaxTokens: maxReplyTokens}, c.parse, correctiveInstruction, minBudget)
		c.d.count(p)
		if err != nil {
			return c.d, err
		}
		if !p.Valid {
			return refused(c.d, p.ParseErrors[0], p.Reply, c.lastErr), nil
		}
		// The blocks of a reply that asked for a SERVER tool (a plan made with a googleSearch)
		// belong to the step as much as the final reply's, which override them.
		maps.Copy(c.d.sections, p.Value.reply.Sections)
		a := p.Value.batch[0]
		if a.Handler() != actions.Server {
			return c.d.chose(p.Value), nil
		}
		result := e.runServerTool(llmCtx, a, q, c.vars, &c.d.learned)
		c.d.serverTools = append(c.d.serverTools, a.String())
		if round+1 >= maxServerTools || !enoughTime(llmCtx, minBudget) {
			return c.d.outOfTime(p.Value), nil
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: p.Reply},
			llm.Message{Role: llm.RoleUser, Content: "SERVER TOOL RESULT: " + result + "\nNow choose the next action on the page."})
	}
}

// conversation is decide's state across the rounds of one step: the decision so far, the task's
// values as the SERVER tools left them, and what was wrong with the last reply.
type conversation struct {
	q question
	d decision
	// vars starts as a copy of the task's values: a value extractValue stores is usable by the
	// replies that follow within the step, and reaches the task only through d.learned.
	vars    map[string]string
	lastErr error
}

func newConversation(q question, model string) *conversation {
	vars := maps.Clone(q.variables)
	if vars == nil {
		vars = map[string]string{}
	}
	return &conversation{q: q, d: decision{model: model, sections: map[string]string{}}, vars: vars}
}

// parse reads a reply and checks it against the page, the values and the loop guard.
func (c *conversation) parse(text string) (choice, error) {
	r, batch, err := parseDecision(text, c.q.page, c.vars, c.q.secrets, c.q.pageURL, c.q.batch)
	if err == nil {
		err = checkLoops(batch, c.q.tried)
	} else if vals := unparsedValues(text, c.q.page); len(vals) > 0 {
		// The corrective retry, the debug entry and fail() quote the error: not the values.
		c.d.unparsed = append(c.d.unparsed, vals...)
		err = errors.New(new(trust.Secrets).With(c.d.unparsed...).Redact(err.Error()))
	}
	c.lastErr = err
	return choice{r, batch}, err
}

// correctionMinBudget is the time a corrective retry or another round needs to be worth asking.
func (e *Engine) correctionMinBudget() time.Duration {
	if e.CorrectionMinBudget <= 0 {
		return DefaultCorrectionMinBudget
	}
	return e.CorrectionMinBudget
}

const correctiveInstruction = "Reply again with exactly one <Thought>…</Thought> and one <Action>…</Action> (the optional blocks may stay), using only the actions listed and element ids present on the current page."

// choice is a parsed reply: its blocks and the actions it chose (one unless a batch).
type choice struct {
	reply actions.Reply
	batch []actions.Action
}

// count adds one LLM exchange (with its corrective retry) to the decision's usage.
func (d *decision) count(p llm.Parsed[choice]) {
	d.usage.PromptTokens += p.Usage.PromptTokens
	d.usage.CompletionTokens += p.Usage.CompletionTokens
	d.latency += p.Latency
	d.attempts += p.Attempts
	d.corrected = d.corrected || p.Corrected
	d.parseErrors = append(d.parseErrors, p.ParseErrors...)
	if p.Model != "" {
		d.model = p.Model
	}
}

// chose ends the decision with the reply's DOM action(s).
func (d decision) chose(c choice) decision {
	a := c.batch[0]
	d.thought, d.action, d.modelAction, d.batch = c.reply.Thought, a, a.String(), c.batch
	if len(d.serverTools) > 0 {
		// The history shows the step's action; the tools run before it are said with it.
		d.note = "before this action the server ran " + strings.Join(d.serverTools, ", ")
	}
	return d
}

// outOfTime ends a decision whose last reply asked for a SERVER tool when no round or time was
// left to ask for the DOM action: the client waits and the next step asks again.
func (d decision) outOfTime(c choice) decision {
	a := c.batch[0]
	wait, _ := actions.New("wait", time.Second)
	d.thought, d.action, d.modelAction = c.reply.Thought, wait, a.String()
	d.note = "the server ran " + a.String() + "; no time was left to ask for the next action"
	return d
}

// refused ends a step whose replies could not be used.
func refused(d decision, firstErr, reply string, lastErr error) decision {
	d.sections = nil // the blocks of earlier SERVER tool rounds belong to a decided step only
	var loop loopError
	if errors.As(lastErr, &loop) {
		ask, _ := actions.New("askUser", "I have tried "+loop.action+" several times and the page does not change. How would you like me to continue?")
		d.thought, d.action, d.modelAction = "I keep trying the same thing without effect, so I'd rather ask you.", ask, loop.action
		d.note = "the server refused " + loop.action + " (repeated on an unchanged page) and asked the user instead"
		return d
	}
	reason := "I could not decide on a valid next action: " + firstErr
	fail, _ := actions.New("fail", shorten(reason, 500))
	d.thought, d.action, d.modelAction = reason, fail, reply
	return d
}

func enoughTime(ctx context.Context, need time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) >= need
}

// searchBudget is the token budget of one search's results in the prompt.
const searchBudget = 1200

// runServerTool carries out a SERVER tool and says what it did, for the model. What it finds is
// added to found, and a stored value to vars, for the replies that follow.
func (e *Engine) runServerTool(ctx context.Context, a actions.Action, q question, vars map[string]string, found *learned) string {
	args := a.Args()
	switch a.Name() {
	case "googleSearch":
		query := args[0].(string)
		if e.Search == nil {
			return "web search is not available in this deployment; go on without it"
		}
		r, err := e.Search.Search(ctx, search.Request{TenantID: q.tenantID, TaskID: q.taskID, Query: query, PageURL: q.pageURL})
		if err != nil {
			// A failed search never fails the step: the model is told and goes on.
			e.logger().WarnContext(ctx, "web search failed", "taskId", q.taskID, "error", err.Error())
			return "the web search failed (" + shorten(err.Error(), 200) + "); go on without it, or ask the user"
		}
		summary := search.Summarize(r, searchBudget)
		found.searches = append(found.searches, tasks.SearchNote{Query: query, Summary: summary})
		return summary
	case "extractValue":
		key, value := args[0].(string), args[1].(string)
		if _, exists := vars[key]; !exists && len(vars) >= MaxVariables {
			return fmt.Sprintf("not stored: the task already holds %d values", MaxVariables)
		}
		vars[key] = shorten(value, MaxVariableValue)
		found.values = append(found.values, [2]string{key, vars[key]})
		return fmt.Sprintf("stored %s = %s; use it with useVariable(%s)", quote(key), quote(value), quote(key))
	}
	return a.Name() + " is not available"
}

var useVariableCall = regexp.MustCompile(`useVariable\(\s*"((?:[^"\\]|\\.)*)"\s*\)`)

// substituteVariables replaces useVariable("key") in an action by the value, quoted, so that
// the client never receives a useVariable call; an unknown key is an error for the model.
func substituteVariables(raw string, vars map[string]string) (string, error) {
	var missing string
	out := useVariableCall.ReplaceAllStringFunc(raw, func(call string) string {
		key := useVariableCall.FindStringSubmatch(call)[1]
		v, ok := vars[key]
		if !ok {
			if missing == "" {
				missing = key
			}
			return call
		}
		q, _ := json.Marshal(v)
		return string(q)
	})
	if missing != "" {
		known := slices.Sorted(maps.Keys(vars))
		return "", fmt.Errorf("useVariable(%q): no value is stored under that key (known keys: %s); use extractValue first or write the text", missing, strings.Join(known, ", "))
	}
	return out, nil
}

func parseDecision(reply string, pg *pagemodel.Page, vars map[string]string, held []trust.NamedSecret, pageURL string, batch bool) (actions.Reply, []actions.Action, error) {
	r, err := actions.ParseReplySections(reply)
	if err != nil {
		return r, nil, err
	}
	acts, err := parseActions(r, pg, vars, held, pageURL, batch)
	return r, acts, err
}

// applyPolicies enforces the server's rules on the model's choice (§4.10): finish() while a
// failure is unverified becomes verifySuccess first.
func (e *Engine) applyPolicies(d decision, mem *tasks.Memory) decision {
	if d.action.Name() != "finish" || !unverifiedFailure(mem) {
		return d
	}
	v, err := actions.New("verifySuccess", "Confirm on the current page that the task is complete.")
	if err != nil {
		return d
	}
	d.action = v
	d.thought = strings.TrimSpace(d.thought + " Before finishing, I'll check the page once more, since an earlier step failed.")
	d.note = "the server asked for a verification before finish()"
	return d
}

// finishNotes tell the model about the policy before it answers, so it rarely needs applying.
func finishNotes(mem *tasks.Memory) []string {
	if !unverifiedFailure(mem) {
		return nil
	}
	return []string{"An earlier action failed and success has not been verified since. Use verifySuccess(\"...\") before finish()."}
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
