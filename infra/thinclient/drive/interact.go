package drive

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/screenagent/backend/infra/thinclient/browser"
	"github.com/screenagent/backend/shared/agent/actions"
	"github.com/screenagent/backend/shared/tasks"
)

// CodeUnsupportedAction reports an action the client cannot carry out (a newer grammar's).
const CodeUnsupportedAction = "UNSUPPORTED_ACTION"

// Interact runs the task through POST /api/agent/interact, as the extension does: every request
// carries the page's dom and the result of the last action; after askUser the user's reply is
// the next request's query on the same task (SERVER_SIDE_AGENT_ARCH.md §14.2.2).
func Interact(ctx context.Context, api *API, tab *browser.Tab, task Task) Transcript {
	var tr Transcript
	if o := tab.Open(ctx, task.StartURL); !o.OK {
		return tr.stop(ctx, fmt.Errorf("open %s: %s", task.StartURL, o.Message))
	}
	task = task.withVault()
	req := interactRequest{Query: task.Text, Mode: task.Mode, SecretNames: task.Secrets.Names(), Capabilities: task.capabilities()}
	req.Timezone, req.Locale = tab.Clock(ctx)
	for n := 1; n <= task.maxSteps(); n++ {
		sctx, cancel := context.WithTimeout(ctx, task.stepTimeout())
		end, done := interactStep(sctx, api, tab, task, n, &req, &tr)
		cancel()
		if done {
			return end
		}
	}
	return tr.capped(task.maxSteps())
}

// interactStep runs one request and its action; done reports the task's end.
func interactStep(ctx context.Context, api *API, tab *browser.Tab, task Task, n int, req *interactRequest, tr *Transcript) (Transcript, bool) {
	c, st, err := observe(ctx, tab, n)
	if err != nil {
		return tr.stop(ctx, err), true
	}
	req.URL, req.DOM = c.URL, c.DOM
	resp, err := api.interact(ctx, *req)
	if err != nil {
		return tr.stop(ctx, fmt.Errorf("step %d: %w", n, err)), true
	}
	if req.SessionID == "" {
		task.started("sessionId", resp.SessionID)
	}
	req.TaskID, req.SessionID, req.Query, req.ConfirmationID = resp.TaskID, resp.SessionID, task.Text, ""
	req.LastActionResults = nil
	st.Action, st.Thought, st.Actions, st.Cached = resp.Action, resp.Thought, 1, resp.Metrics.Cache == "hit"
	if resp.Usage != nil {
		st.PromptTokens, st.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	if len(resp.Actions) > 1 {
		if err := runActions(ctx, tab, resp.Actions, task.Secrets, st, req, tr); err != nil {
			return tr.stop(ctx, fmt.Errorf("step %d: %w", n, err)), true
		}
		return *tr, false
	}
	act, perr := actions.Parse(resp.Action)
	switch {
	case perr != nil:
		st.Result = "the client cannot read the action: " + perr.Error()
		tr.Steps = append(tr.Steps, st)
		return tr.stop(ctx, fmt.Errorf("step %d: unreadable action %q: %w", n, resp.Action, perr)), true
	case act.Name() == "finish" || resp.Status == string(tasks.StatusCompleted):
		st.OK, st.Result, st.Actions = true, "The task is done.", 0
		tr.Steps = append(tr.Steps, st)
		tr.End, tr.Answer = Finished, answerOf(act, resp)
		return *tr, true
	case act.Name() == "fail" || resp.Status == string(tasks.StatusFailed):
		reason, _ := act.Text()
		st.Result, st.Actions = "The agent gave up: "+reason, 0
		tr.Steps = append(tr.Steps, st)
		tr.End, tr.Reason = Failed, cmpOr(reason, resp.Thought, "the agent failed the task")
		return *tr, true
	case act.Name() == "askUser" || resp.Status == "needs_user_input":
		q, _ := act.Text()
		st.Actions = 0
		st.Question = cmpOr(resp.UserQuestion, q)
		st.Reply, st.Approved = task.reply(st.Question, resp.UserRequest, c.URL)
		st.OK, st.Result = true, "The user answered."
		tr.Steps = append(tr.Steps, st)
		if st.Reply == "" {
			tr.End, tr.Reason = Stopped, "the user had no answer to: "+st.Question
			return *tr, true
		}
		req.Query, req.LastActionStatus, req.LastActionError = st.Reply, "success", nil
		req.SecretNames = task.Secrets.Names() // with any secret the user just typed
		if st.Approved {
			// The approval of an action the payment gate held names it, and nothing else.
			req.ConfirmationID = resp.ConfirmationID
		}
		return *tr, false
	}
	o := execute(ctx, tab, act, task.Secrets)
	st.OK, st.Result = o.OK, o.Message
	tr.Steps = append(tr.Steps, st)
	if o.OK {
		req.LastActionStatus, req.LastActionError = "success", nil
	} else {
		ae := &tasks.ActionError{Message: o.Message, Code: o.Code, Action: act.String()}
		if id, ok := act.ElementID(); ok {
			ae.ElementID = &id
		}
		req.LastActionStatus, req.LastActionError = "failure", ae
	}
	return *tr, false
}

// runActions runs a batch of actions (runBatch) and reports each outcome in the next request's
// lastActionResults; the step fails with the first action that failed.
func runActions(ctx context.Context, tab *browser.Tab, batch []string, secrets Vault, st Step, req *interactRequest, tr *Transcript) error {
	acts := make([]actions.Action, len(batch))
	for i, s := range batch {
		a, err := actions.Parse(s)
		if err != nil {
			return fmt.Errorf("unreadable action %q of a batch: %w", s, err)
		}
		acts[i] = a
	}
	outs := runBatch(ctx, tab, len(acts), func(ctx context.Context, i int) browser.Outcome { return execute(ctx, tab, acts[i], secrets) })
	req.LastActionStatus, req.LastActionError, req.LastActionResults = "", nil, make([]tasks.ActionResult, len(outs))
	for i, o := range outs {
		r := tasks.ActionResult{Action: batch[i], Status: "success"}
		switch {
		case o.Skipped:
			r.Status = "skipped"
		case !o.OK:
			r.Status, r.Error = "failure", &tasks.ActionError{Message: o.Message, Code: o.Code}
		}
		req.LastActionResults[i] = r
	}
	st.Action, st.Actions = strings.Join(batch, "\n"), len(batch)
	st.OK, st.Result = summary(outs)
	tr.Steps = append(tr.Steps, st)
	return nil
}

// execute carries out an action of the interact grammar in the tab.
func execute(ctx context.Context, tab *browser.Tab, act actions.Action, secrets Vault) browser.Outcome {
	args := act.Args()
	text, _ := act.Text()
	id, _ := act.ElementID()
	if name, ok := act.Secret(); ok {
		return secrets.fill(ctx, tab, browser.IDOf(id), name, false)
	}
	switch act.Name() {
	case "click":
		return tab.Click(ctx, browser.IDOf(id))
	case "setValue":
		return tab.SetValue(ctx, browser.IDOf(id), args[1].(string))
	case "search":
		return tab.Search(ctx, text)
	case "scroll":
		return tab.ScrollScreen(ctx, text == "down")
	case "navigate":
		return tab.Open(ctx, text)
	case "pressKey":
		return tab.Press(ctx, text)
	case "dismissDialog":
		return tab.DismissDialog(ctx)
	case "wait":
		return tab.Wait(ctx, args[0].(time.Duration))
	case "verifySuccess":
		// A checkpoint: the next request brings the page on which the agent checks its work.
		return browser.Outcome{OK: true, Message: "Ready for verification: the next page is the current one"}
	}
	return browser.Outcome{Code: CodeUnsupportedAction, Message: fmt.Sprintf("the client does not know how to carry out %s", act.Name())}
}

// answerOf is the task's answer: finish's argument, else the response's result, else the thought.
func answerOf(act actions.Action, resp interactResponse) string {
	if s, ok := act.Text(); ok && act.Name() == "finish" {
		return s
	}
	return cmpOr(resp.Result, resp.Thought)
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
