package agent

import (
	"context"
	"time"

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
	a, ok := turn.Lookup(ctx)
	if !ok {
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
	case d.sections["Extract"] != "" || d.sections["Branch"] != "":
		skip = "it read a value or decided a branch from the page"
	}
	return actioncache.Decided{Action: d.action, Served: served && d.action.String() == d.modelAction, Skip: skip, Variables: mem.Variables}
}

// learnFromCache lets the cache learn a task that just ended; the step is committed already, so
// a failure only costs a later run its cache hits and is logged.
func (e *Engine) learnFromCache(ctx context.Context, turn *actioncache.Turn, status tasks.Status) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := turn.Finish(wctx, status == tasks.StatusCompleted); err != nil {
		e.logger().WarnContext(ctx, "action cache: learn the task", "error", err.Error())
	}
}
