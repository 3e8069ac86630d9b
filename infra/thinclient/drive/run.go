package drive

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/screenagent/backend/infra/thinclient/browser"
)

// Run runs the task through the run API (PROXY_SERVER_API.md): /start, then /step with each
// snapshot and the last tool's result; an ask_user goes to the user and their answer to
// /answer, whose approved tool the client then carries out.
func Run(ctx context.Context, api *API, tab *browser.Tab, task Task) Transcript {
	var tr Transcript
	if o := tab.Open(ctx, task.StartURL); !o.OK {
		return tr.stop(ctx, fmt.Errorf("open %s: %s", task.StartURL, o.Message))
	}
	task = task.withVault()
	mode := cmpOr(task.Mode, "autonomous")
	zone, locale := tab.Clock(ctx)
	runID, err := api.runStart(ctx, task.Text, mode, zone, locale, task.Secrets.Names(), task.capabilities())
	if err != nil {
		return tr.stop(ctx, fmt.Errorf("start run: %w", err))
	}
	task.started("runId", runID)
	var last runReport
	for n := 1; n <= task.maxSteps(); n++ {
		sctx, cancel := context.WithTimeout(ctx, task.stepTimeout())
		var done bool
		last, done = runStep(sctx, api, tab, task, runID, n, last, &tr)
		cancel()
		if done {
			return tr
		}
	}
	return tr.capped(task.maxSteps())
}

// runStep sends one snapshot and handles the answer; done reports the run's end.
func runStep(ctx context.Context, api *API, tab *browser.Tab, task Task, runID string, n int, last runReport, tr *Transcript) (runReport, bool) {
	c, st, err := observe(ctx, tab, n)
	if err != nil {
		tr.stop(ctx, err)
		return runReport{}, true
	}
	resp, err := api.runStep(ctx, runID, &c.Snapshot, last.result, last.parts)
	if err != nil {
		tr.stop(ctx, fmt.Errorf("step %d: %w", n, err))
		return runReport{}, true
	}
	st.Cached = resp.Cached
	if resp.Action == "ask_user" {
		st.Action, st.Question = "ask_user", resp.Question
		st.Reply, st.Approved = task.reply(resp.Question, resp.UserRequest, c.URL)
		st.OK, st.Result = true, "The user answered."
		tr.Steps = append(tr.Steps, st)
		resp, err = api.runAnswer(ctx, runID, st.Approved, st.Reply, resp.ConfirmationID, task.Secrets.Names())
		if err != nil {
			tr.stop(ctx, fmt.Errorf("answer: %w", err))
			return runReport{}, true
		}
		// The answer's tool is the approved action, carried out on the same page; the server says
		// when it is one its action cache served.
		st = Step{N: st.N, URL: st.URL, Cached: resp.Cached}
	}
	switch resp.Action {
	case "execute_tool":
		if resp.Tool == nil {
			tr.stop(ctx, fmt.Errorf("step %d: execute_tool without a tool", n))
			return runReport{}, true
		}
		if len(resp.Tools) > 1 {
			return runTools(ctx, tab, resp.Tools, task.Secrets, st, tr), false
		}
		args, _ := json.Marshal(resp.Tool.Parameters)
		st.Action, st.Actions = resp.Tool.Name+" "+string(args), 1
		res := executeTool(ctx, tab, resp.Tool.Name, resp.Tool.Parameters, task.Secrets)
		st.OK, st.Result = res.Success, cmpOr(res.Message, res.Error)
		tr.Steps = append(tr.Steps, st)
		return runReport{result: &res}, false
	case "finish":
		st.Action, st.OK, st.Result = "finish", true, "The task is done."
		tr.Steps = append(tr.Steps, st)
		tr.End, tr.Answer = Finished, resp.Result
	case "error":
		st.Action, st.Result = "error", resp.Error
		tr.Steps = append(tr.Steps, st)
		tr.End, tr.Reason = Failed, resp.Error
		if resp.State.Status == "cancelled" {
			tr.End = Stopped
		}
	default:
		tr.stop(ctx, fmt.Errorf("step %d: unknown action %q", n, resp.Action))
	}
	return runReport{}, true
}

// runReport is what the next step reports of the last one: its tool's result, or each result
// of its batch.
type runReport struct {
	result *runResult
	parts  []runResult
}

// runTools runs a batch of tool calls (runBatch) and reports each result.
func runTools(ctx context.Context, tab *browser.Tab, calls []runTool, secrets Vault, st Step, tr *Transcript) runReport {
	var lines []string
	for _, c := range calls {
		args, _ := json.Marshal(c.Parameters)
		lines = append(lines, c.Name+" "+string(args))
	}
	outs := runBatch(ctx, tab, len(calls), func(ctx context.Context, i int) browser.Outcome {
		r := executeTool(ctx, tab, calls[i].Name, calls[i].Parameters, secrets)
		return browser.Outcome{OK: r.Success, Message: cmpOr(r.Message, r.Error)}
	})
	parts := make([]runResult, len(outs))
	for i, o := range outs {
		parts[i] = runResult{Success: o.OK, Skipped: o.Skipped}
		if o.OK {
			parts[i].Message = o.Message
		} else if !o.Skipped {
			parts[i].Error = o.Message
		}
	}
	st.Action, st.Actions = strings.Join(lines, "\n"), len(calls)
	st.OK, st.Result = summary(outs)
	tr.Steps = append(tr.Steps, st)
	return runReport{parts: parts}
}

// observePause is how long observe lets the page change before its snapshot.
const observePause = 1500 * time.Millisecond

// executeTool carries out a run API tool call in the tab.
func executeTool(ctx context.Context, tab *browser.Tab, name string, p map[string]any, secrets Vault) runResult {
	str := func(k string) string { s, _ := p[k].(string); return s }
	var o browser.Outcome
	switch name {
	case "observe":
		// A model observes again when the page is still loading: the extension gives it a moment
		// (the run API has no wait tool) before the next snapshot.
		if o = tab.Wait(ctx, observePause); !o.OK {
			return runResult{Error: o.Message}
		}
		return runResult{Success: true, Message: "Took a fresh snapshot of the page"}
	case "navigate":
		o = tab.Open(ctx, str("url"))
	case "click":
		o = tab.Click(ctx, str("id"))
	case "type":
		submit, _ := p["submit"].(bool)
		if name := str("secret"); name != "" {
			o = secrets.fill(ctx, tab, str("id"), name, submit)
		} else {
			o = tab.Type(ctx, str("id"), str("text"), submit)
		}
	case "scroll":
		dy, _ := p["deltaY"].(float64)
		o = tab.Scroll(ctx, dy)
	case "press":
		o = tab.Press(ctx, str("key"))
	default:
		return runResult{Error: fmt.Sprintf("%s: the client does not know the tool %q", CodeUnsupportedAction, name)}
	}
	if !o.OK {
		return runResult{Error: o.Message}
	}
	return runResult{Success: true, Message: o.Message}
}
