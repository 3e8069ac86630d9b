package agent

import (
	"context"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
)

// ActionCache serves the steps of tasks the tenant completed before, verified (actioncache.Cache;
// DESIGN.md decision 21).
type ActionCache interface {
	Open(ctx context.Context, in actioncache.Open) *actioncache.Turn
}

// cacheEngine names the interact engine's entries (actioncache.EntryKey).
const cacheEngine = "interact"

// cacheThought is the thought of a step served from the cache: the earlier run's thought may
// state facts of its page, so none is replayed.
const cacheThought = "This step repeats a verified step of an earlier run of the same task on the same page (action cache)."

// openCache starts the cache's part in the step, after the last action's verification and the
// user's message, if any, which the model must read.
func (e *Engine) openCache(ctx context.Context, req Request, st state, pg *pagemodel.Page, userMessage string) *actioncache.Turn {
	mem := &st.task.Memory
	failed := req.Report.Failed()
	if last := mem.Last(); last != nil && last.Verdict == tasks.Unverified {
		failed = true
	}
	in := actioncache.Open{
		Engine: cacheEngine, TenantID: req.Identity.TenantID, TaskID: st.task.ID, Task: st.task.Query, Trail: mem.Cache,
		URL: req.URL, Page: pg, LastFailed: failed, Disabled: req.NoCache, Redact: mem.Secrets.Redact,
		UserSpoke: userMessage != "" && req.ConfirmationID == "", Heard: heard(mem),
	}
	if e.Cache == nil {
		return (*actioncache.Cache)(nil).Open(ctx, in)
	}
	return e.Cache.Open(ctx, in)
}

// heard is what the task was told apart from its text and its pages: the user's messages and
// the web searches' findings that the model sees (actioncache.Open.Heard).
func heard(mem *tasks.Memory) []string {
	var out []string
	for _, m := range mem.Messages {
		out = append(out, m.Text)
	}
	for _, s := range mem.Searches {
		out = append(out, s.Summary)
	}
	return out
}

// fromCache is the cached decision for the page, when the cache has one that the engine's own
// checks accept: each action of it valid on the page (a named secret held by the client and
// allowed on this page), a batch only for a client that runs batches and within the batch
// rules, none refused by the loop guard. The policies that follow a model's decision apply to
// it alike.
func (e *Engine) fromCache(ctx context.Context, turn *actioncache.Turn, req Request, mem *tasks.Memory, pg *pagemodel.Page, tried map[string]int) (decision, bool) {
	act, ok := turn.Lookup(ctx)
	if !ok {
		return decision{}, false
	}
	if len(act.Rest) > 0 && !req.Batch {
		turn.Reject("the cached step is a batch and the client runs one action a step")
		return decision{}, false
	}
	var batch []actions.Action
	for _, part := range append([]actioncache.Act{act}, act.Rest...) {
		a, err := fromAct(part)
		if err == nil {
			if _, named := a.Secret(); named {
				a, _, err = parseSecretAction(a.String(), mem.SecretNames, req.URL, pg.HasElement)
			} else {
				err = actions.Validate(a, pg.HasElement)
			}
		}
		if err != nil {
			turn.Reject("the cached action is not valid on the page: " + err.Error())
			return decision{}, false
		}
		batch = append(batch, a)
	}
	if err := actions.CheckBatch(batch, togglesOn(pg)); err != nil {
		turn.Reject("the cached batch breaks the batch rules: " + err.Error())
		return decision{}, false
	}
	if err := checkLoops(batch, tried); err != nil {
		turn.Reject("the loop guard refuses the cached action: " + err.Error())
		return decision{}, false
	}
	a := batch[0]
	return decision{thought: cacheThought, action: a, batch: batch, modelAction: a.String(), model: "action-cache", note: "served from the action cache"}, true
}

// cacheDecided is the step as the cache's trail records it, with why it may not be replayed. An
// approval of the action the payment gate held (a confirmationId) is no message to read: the step
// after it takes the approved action again.
func (in *interaction) cacheDecided() actioncache.Decided {
	d, mem := in.decision, &in.task.Memory
	skip := ""
	switch {
	case in.loginFailed:
		skip = "it answers a failed login"
	case in.userMessage != "" && in.req.ConfirmationID == "":
		skip = "it follows a message of the user"
	case len(d.serverTools) > 0:
		skip = "it ran a server tool"
	case d.sections["Extract"] != "" || d.sections["Branch"] != "":
		skip = "it read a value or decided a branch from the page"
	}
	act := toAct(d.action)
	if len(d.batch) > 1 {
		for _, a := range d.batch[1:] {
			act.Rest = append(act.Rest, toAct(a))
		}
	}
	return actioncache.Decided{Action: act, Served: in.served && d.action.String() == d.modelAction, Skip: skip, Variables: mem.Variables,
		Held: in.confirmation != ""}
}

// toAct is the action as the cache keeps it: its form without its element id and answer, which a
// replay takes from the page it replays on. A named secret keeps its name, never a value.
func toAct(a actions.Action) actioncache.Act {
	act := actioncache.Act{Name: a.Name(), Kind: actioncache.Continues}
	switch {
	case a.Effect() == actions.Completes:
		act.Kind = actioncache.Completes
	case a.Effect() == actions.AsksUser:
		act.Kind = actioncache.AsksUser
	case a.Effect() == actions.Fails:
		act.Kind = actioncache.Fails
	case a.Handler() == actions.Server:
		act.Kind = actioncache.Server
	}
	form, err := withElement(a, 0)
	if act.Kind == actioncache.Completes {
		// The answer is read from the page on replay: the form keeps none.
		act.Answer, _ = a.Text()
		form, err = actions.New(a.Name())
	}
	if err != nil {
		return actioncache.Act{Name: a.Name(), Kind: actioncache.Server}
	}
	act.Form = form.String()
	act.Element, act.HasElement = a.ElementID()
	act.Secret, _ = a.Secret()
	if text, hasText := a.Text(); act.Kind == actioncache.Continues && hasText {
		act.Typed = text
		if blank, err := withText(form, ""); err == nil {
			act.Blank = blank.String()
		}
	}
	return act
}

// withText is the action with another text (its first text argument).
func withText(a actions.Action, text string) (actions.Action, error) {
	return actions.New(a.Name(), replaceFirst(a.Args(), text)...)
}

// replaceFirst puts v in place of the first argument of its type.
func replaceFirst[T any](args []any, v T) []any {
	for i, arg := range args {
		if _, ok := arg.(T); ok {
			args[i] = v
			break
		}
	}
	return args
}

// withElement is the action on another element (its first element argument), a named secret
// kept as such.
func withElement(a actions.Action, id int) (actions.Action, error) {
	args := replaceFirst(a.Args(), id)
	name, named := a.Secret()
	for i, v := range args {
		if _, ok := v.(actions.SecretRef); ok {
			args[i] = ""
		}
	}
	b, err := actions.New(a.Name(), args...)
	if err != nil || !named {
		return b, err
	}
	return b.WithSecret(name)
}

// fromAct rebuilds the action the cache offers, on the current page's element, with the answer
// read from the current page and a value read from the task's text.
func fromAct(act actioncache.Act) (actions.Action, error) {
	a, err := actions.Parse(act.Form)
	if err != nil {
		return actions.Action{}, err
	}
	if act.Answer != "" {
		return actions.New(a.Name(), act.Answer)
	}
	if act.Typed != "" {
		// A value read again from the task's text (actioncache.Part.FromTask).
		if a, err = withText(a, act.Typed); err != nil {
			return actions.Action{}, err
		}
	}
	if !act.HasElement {
		return a, nil
	}
	return withElement(a, act.Element)
}

// learnFromCache lets the cache learn a task that just ended, and logs what the cache did for the
// step; the step is committed already, so a failure to learn only costs a later run its cache
// hits and is logged.
func (e *Engine) learnFromCache(ctx context.Context, turn *actioncache.Turn, status tasks.Status) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.writeReserve())
	defer cancel()
	if err := turn.Finish(wctx, status == tasks.StatusCompleted); err != nil {
		e.logger().WarnContext(ctx, "action cache: learn the task", "error", err.Error())
	}
	turn.Log(ctx, e.logger())
}
