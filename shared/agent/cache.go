package agent

import (
	"context"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/tasks"
)

// ActionCache serves the steps of tasks the tenant completed before, verified (actioncache.Cache;
// DESIGN.md decision 21).
type ActionCache interface {
	Open(ctx context.Context, in actioncache.Open) *actioncache.Turn
}

// cacheThought is the thought of a step served from the cache: the earlier run's thought may
// state facts of its page, so none is replayed.
const cacheThought = "This step repeats a verified step of an earlier run of the same task on the same page (action cache)."

// openCache starts the cache's part in the step, after the last action's verification.
func (e *Engine) openCache(ctx context.Context, req Request, st state, pg *page.Page) *actioncache.Turn {
	mem := &st.task.Memory
	failed := req.Report.Failed()
	if last := mem.Last(); last != nil && last.Verdict == tasks.Unverified {
		failed = true
	}
	in := actioncache.Open{
		TenantID: req.Identity.TenantID, TaskID: st.task.ID, Task: st.task.Query, Trail: mem.Cache,
		URL: req.URL, Page: pg, LastFailed: failed, Disabled: req.NoCache,
	}
	if e.Cache == nil {
		return (*actioncache.Cache)(nil).Open(ctx, in)
	}
	return e.Cache.Open(ctx, in)
}

// fromCache is the cached decision for the page, when the cache has one that the engine's own
// checks accept: valid on the page and not refused by the loop guard. The policies that follow
// a model's decision apply to it alike.
func (e *Engine) fromCache(ctx context.Context, turn *actioncache.Turn, pg *page.Page, tried map[string]int) (decision, bool) {
	act, ok := turn.Lookup(ctx)
	if !ok {
		return decision{}, false
	}
	a, err := fromAct(act)
	if err != nil {
		turn.Reject("the cached action does not parse: " + err.Error())
		return decision{}, false
	}
	if err := actions.Validate(a, pg.HasElement); err != nil {
		turn.Reject("the cached action is not valid on the page: " + err.Error())
		return decision{}, false
	}
	if err := checkLoop(a, tried); err != nil {
		turn.Reject("the loop guard refuses the cached action: " + err.Error())
		return decision{}, false
	}
	return decision{thought: cacheThought, action: a, modelAction: a.String(), model: "action-cache", note: "served from the action cache"}, true
}

// cacheDecided is the step as the cache's trail records it, with why it may not be replayed.
func cacheDecided(d decision, served bool, userMessage string, loginFailed bool, mem *tasks.Memory) actioncache.Decided {
	skip := ""
	switch {
	case loginFailed:
		skip = "it answers a failed login"
	case userMessage != "":
		skip = "it follows a message of the user"
	case len(d.serverTools) > 0:
		skip = "it ran a server tool"
	case len(d.batch) > 1:
		skip = "it is a batch of actions, which the cache keeps one of"
	case d.sections["Extract"] != "" || d.sections["Branch"] != "":
		skip = "it read a value or decided a branch from the page"
	}
	return actioncache.Decided{Action: toAct(d.action), Served: served && d.action.String() == d.modelAction, Skip: skip, Variables: mem.Variables}
}

// toAct is the action as the cache keeps it: its form without its element id and answer, which a
// replay takes from the page it replays on.
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
	args := a.Args()
	for i, v := range args {
		if id, ok := v.(int); ok && !act.HasElement {
			act.Element, act.HasElement, args[i] = id, true, 0
		}
	}
	text, hasText := a.Text()
	switch {
	case act.Kind == actioncache.Completes:
		act.Answer, args = text, nil
	case act.Kind == actioncache.Continues && hasText:
		act.Typed = text
	}
	form, err := actions.New(a.Name(), args...)
	if err != nil {
		return actioncache.Act{Name: a.Name(), Kind: actioncache.Server}
	}
	act.Form = form.String()
	return act
}

// fromAct rebuilds the action the cache offers, on the current page's element and with the
// answer read from the current page.
func fromAct(act actioncache.Act) (actions.Action, error) {
	a, err := actions.Parse(act.Form)
	if err != nil {
		return actions.Action{}, err
	}
	args := a.Args()
	for i, v := range args {
		if _, ok := v.(int); ok && act.HasElement {
			args[i] = act.Element
			break
		}
	}
	if act.Answer != "" {
		args = []any{act.Answer}
	}
	return actions.New(a.Name(), args...)
}

// learnFromCache lets the cache learn a task that just ended; the step is committed already, so
// a failure only costs a later run its cache hits and is logged.
func (e *Engine) learnFromCache(ctx context.Context, turn *actioncache.Turn, status tasks.Status) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.writeReserve())
	defer cancel()
	if err := turn.Finish(wctx, status == tasks.StatusCompleted); err != nil {
		e.logger().WarnContext(ctx, "action cache: learn the task", "error", err.Error())
	}
}
