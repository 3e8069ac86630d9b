package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/screenagent/backend/shared/actionbatch"
	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/trust"
)

// ActionCache serves the steps of runs the tenant completed before, verified (actioncache.Cache;
// DESIGN.md decision 21): the same design as the interact engine's, on the run's snapshots.
type ActionCache interface {
	Open(ctx context.Context, in actioncache.Open) *actioncache.Turn
}

// cacheThought is the thought of a step served from the cache: the earlier run's thought may
// state facts of its page, so none is replayed.
const cacheThought = "This step repeats a verified step of an earlier run of the same task on the same page (action cache)."

// cacheModel is the model name a step served from the cache records.
const cacheModel = "action-cache"

// cacheTurn is the cache's part in one step, with the snapshot as the cache sees it.
type cacheTurn struct {
	turn *actioncache.Turn
	view *pagemodel.Page
	// ids are the snapshot's element ids by the view's numbering (view id i is ids[i-1]).
	ids []string
	// spoke says the user answered the model's question at the run's last step: the model reads
	// the answer, and the step that follows it is never served.
	spoke bool
}

// openCache starts the cache's part in the step on the page the step decides on, after the
// run's recent history.
func (s *Service) openCache(ctx context.Context, req StepRequest, run Run, result *Result, snap *Snapshot, history []Entry) *cacheTurn {
	view, ids := cacheView(snap)
	spoke := userAnswered(history)
	in := actioncache.Open{
		Engine: "run", TenantID: run.TenantID, TaskID: run.ID, Task: run.Task, Trail: run.CacheTrail, URL: snap.URL, Page: view,
		LastFailed: result != nil && !result.Success, Disabled: req.NoCache, Redact: run.Secrets.Redact, UserSpoke: spoke,
		Heard: answersIn(history),
	}
	c := &cacheTurn{view: view, ids: ids, spoke: spoke}
	if s.Cache == nil {
		c.turn = (*actioncache.Cache)(nil).Open(ctx, in)
	} else {
		c.turn = s.Cache.Open(ctx, in)
	}
	return c
}

// userAnswered reports whether the run's last step took the user's answer to the model's own
// question (Answer then observes). Approving a call the gate held is no answer to read: the
// approved call ran, and what follows it may be served.
func userAnswered(history []Entry) bool {
	n := len(history)
	return n > 0 && history[n-1].UserAnswer != nil && history[n-1].Action == ToolObserve
}

// answersIn are the user's answers in the run's recent history, the words the model was told
// apart from the task and its pages (actioncache.Open.Heard).
func answersIn(history []Entry) []string {
	var out []string
	for _, e := range history {
		if e.UserAnswer != nil && e.UserAnswer.Text != "" {
			out = append(out, e.UserAnswer.Text)
		}
	}
	return out
}

// cacheView writes the snapshot as the simplified DOM the cache's page view reads: the title, the
// visible text line by line, and each element with its role, type, name, labels and link, numbered
// in snapshot order. A snapshot has no tree, so its elements have no row or card context: look-alike
// controls stay ambiguous, and are never served.
func cacheView(snap *Snapshot) (*pagemodel.Page, []string) {
	var b strings.Builder
	b.WriteString("<title>" + html.EscapeString(snap.Title) + "</title>")
	for _, line := range strings.Split(snap.VisibleText, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			b.WriteString("<p>" + html.EscapeString(line) + "</p>")
		}
	}
	ids := make([]string, len(snap.Elements))
	for i, e := range snap.Elements {
		ids[i] = e.ID
		tag := safeTag(e.Tag)
		fmt.Fprintf(&b, `<%s id="%d"`, tag, i+1)
		for _, a := range [][2]string{{"role", e.Role}, {"type", e.Type}, {"name", e.Name}, {"aria-label", e.AriaLabel}, {"placeholder", e.Placeholder}, {"href", e.Href}, {"value", e.Value}} {
			if a[1] != "" {
				fmt.Fprintf(&b, ` %s="%s"`, a[0], html.EscapeString(a[1]))
			}
		}
		if tag == "input" {
			b.WriteString("/>")
			continue
		}
		b.WriteString(">" + html.EscapeString(e.Text) + "</" + tag + ">")
	}
	return pagemodel.Parse(b.String()), ids
}

// safeTag keeps a tag name the parser reads as one element.
func safeTag(t string) string {
	t = strings.ToLower(t)
	for _, r := range t {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return "span"
		}
	}
	if t == "" {
		return "span"
	}
	return t
}

// fromCache is the cached decision for the page, when the cache has one that the run's own
// checks accept: a batch only for a run that runs batches and within the batch rules, a named
// secret held by the client and allowed on this page.
func (s *Service) fromCache(ctx context.Context, c *cacheTurn, batch bool, held []trust.NamedSecret, snap *Snapshot) (decision, bool) {
	act, ok := c.turn.Lookup(ctx)
	if !ok {
		return decision{}, false
	}
	d := decision{model: cacheModel, reply: Reply{Thought: cacheThought}}
	if act.Kind == actioncache.Completes && len(act.Rest) == 0 {
		d.reply.Type, d.reply.Answer = ReplyFinal, act.Answer
		return d, true
	}
	if len(act.Rest) > 0 && !batch {
		c.turn.Reject("the cached step is a batch and the run takes one call a step")
		return decision{}, false
	}
	var tools []Tool
	var parts []actionbatch.Part
	for _, part := range append([]actioncache.Act{act}, act.Rest...) {
		tool, why := c.tool(part)
		if why != "" {
			c.turn.Reject(why)
			return decision{}, false
		}
		tools = append(tools, tool)
		parts = append(parts, actionbatch.Part{Action: tool.String(), Role: batchRole(tool, snap), Target: tool.target()})
	}
	d.reply.Type, d.reply.Tool = ReplyToolCall, tools[0]
	if len(tools) > 1 {
		d.reply.Tools = tools
		if err := actionbatch.Check(parts); err != nil {
			c.turn.Reject("the cached batch breaks the batch rules: " + err.Error())
			return decision{}, false
		}
	}
	if err := checkSecretUse(d.reply, held, snap); err != nil {
		c.turn.Reject("the cached call cannot be used: " + err.Error())
		return decision{}, false
	}
	return d, true
}

// tool is the call a cached action makes on this snapshot, or why it cannot be made.
func (c *cacheTurn) tool(act actioncache.Act) (Tool, string) {
	if act.Kind != actioncache.Continues {
		return Tool{}, "the cached step is not an action on the page"
	}
	var tool Tool
	if err := json.Unmarshal([]byte(act.Form), &tool); err != nil {
		return Tool{}, "the cached tool does not parse"
	}
	if act.HasElement {
		if act.Element < 1 || act.Element > len(c.ids) {
			return Tool{}, "the cached target is not on the page"
		}
		tool.ID = c.ids[act.Element-1]
	}
	if act.Typed != "" {
		// A value read again from the task's text (actioncache.Part.FromTask).
		tool.Text = act.Typed
	}
	return tool, ""
}

// status is metrics' cache field ("" when the step had no page to decide on).
func (c *cacheTurn) status() string {
	if c == nil {
		return ""
	}
	return c.turn.Outcome().Status
}

// record adds the step as answered (after the loop rules and the gate) to the run's trail.
func (c *cacheTurn) record(trail []byte, entry Entry, sent []Tool, served bool) []byte {
	if c == nil {
		return trail
	}
	var act actioncache.Act
	switch {
	case entry.Action == ToolFinish:
		act = actioncache.Act{Name: entry.Action, Kind: actioncache.Completes, Answer: entry.Answer, Form: ToolFinish}
	case entry.Action == ToolAskUser && entry.Tool == nil:
		act = actioncache.Act{Name: entry.Action, Kind: actioncache.AsksUser}
	default:
		calls := callsOf(entry)
		if len(calls) == 0 {
			act = actioncache.Act{Name: entry.Action, Kind: actioncache.Server}
			break
		}
		act = c.act(calls[0], sentText(sent, 0, calls[0]))
		for i, t := range calls[1:] {
			act.Rest = append(act.Rest, c.act(t, sentText(sent, i+1, t)))
		}
	}
	// A call the gate held is recorded as the calls that run once the user approves them (Answer
	// sends them): a replay is held again, and a cut batch is no longer the cached step. A
	// declined call cancels the run, so nothing follows it.
	skip := ""
	if c.spoke {
		skip = "it follows a message of the user"
	}
	return c.turn.Record(actioncache.Decided{Action: act, Served: served, Skip: skip})
}

// sentText is the text the client got for the kept call at index i, when the run keeps it masked
// (a secret typed into a secret field): the cache may keep where the task gives it, never the
// value ("" for a call kept as sent).
func sentText(sent []Tool, i int, kept Tool) string {
	if kept.Text != trust.Mask || i >= len(sent) || sent[i].Name != kept.Name {
		return ""
	}
	return sent[i].Text
}

// act is a call as the cache keeps it: without its element id, which a replay takes from the
// page it replays on. secret is the value of a call kept masked ("" for none).
func (c *cacheTurn) act(tool Tool, secret string) actioncache.Act {
	act := actioncache.Act{Name: tool.Name, Kind: actioncache.Continues, Typed: tool.Text, Secret: tool.Secret}
	if secret != "" {
		act.Typed, act.Masked = secret, true
	}
	for i, id := range c.ids {
		if tool.ID != "" && id == tool.ID {
			act.Element, act.HasElement = i+1, true
		}
	}
	tool.ID = ""
	form, err := json.Marshal(tool)
	if err != nil {
		return actioncache.Act{Name: tool.Name, Kind: actioncache.Server}
	}
	act.Form = string(form)
	if tool.Text != "" {
		tool.Text = ""
		if blank, err := json.Marshal(tool); err == nil {
			act.Blank = string(blank)
		}
	}
	return act
}

// learnFromCache lets the cache learn a run that just ended, and logs what the cache did for the
// step; the step is saved already, so a failure to learn only costs a later run its cache hits
// and is logged.
func (s *Service) learnFromCache(ctx context.Context, c *cacheTurn, status Status) {
	if c == nil {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orDefault(s.WriteReserve, DefaultWriteReserve))
	defer cancel()
	if err := c.turn.Finish(wctx, status == StatusCompleted); err != nil {
		s.logger().WarnContext(ctx, "action cache: learn the run", "error", err.Error())
	}
	c.turn.Log(ctx, s.logger())
}
