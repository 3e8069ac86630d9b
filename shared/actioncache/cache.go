// Package actioncache is the verified action cache (DESIGN.md decision 21): a tenant's task
// that completed with every step verified becomes an entry, and a later run of the same task
// (same normalised text, same tenant) is served from it, step by step, without the model,
// for as long as each page matches the page the step was decided on and each replay brings the
// page the run saw next.
//
// The engines call it through a Turn, one per step: Open observes what the last step brought
// (a failed replay drops the entry), Lookup offers the cached action for the current page, Record
// adds the step actually taken to the task's trail, and Finish learns the trail of a completed
// task. What may not be replayed never enters an entry: values typed into secret fields, values
// taken from extracted facts, questions to the user; answers are re-read from the current page
// (answer.go).
package actioncache

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/screenagent/backend/shared/pagemodel"
)

// ErrNotFound is what a Store answers for an entry that is absent or expired.
var ErrNotFound = errors.New("actioncache: no entry")

// MaxSteps bounds what a task teaches: its trail rides on the task's item.
const MaxSteps = 60

// DefaultTTL is how long an entry lives after the last verified run that wrote or confirmed it.
const DefaultTTL = 14 * 24 * time.Hour

// Entry is what a tenant's verified run of a task taught: its steps in order.
type Entry struct {
	TenantID string
	// Key identifies the task (EntryKey of its normalised text).
	Key string
	// Task is the normalised task text, for the record.
	Task  string
	Steps []Step
	// Runs counts the verified runs that took exactly these steps.
	Runs int
	// Revision names this version of the steps; a task aligned to one version stops being
	// served when the entry is rewritten under it.
	Revision    string
	LearnedFrom string // the task whose run wrote this version
	UpdatedAt   time.Time
	ExpiresAt   time.Time
}

// Step is one step of an entry: the action, or batch of actions, decided on one page.
type Step struct {
	// Page is the PageKey of the page the step was decided on.
	Page string `json:"page"`
	// Part is the step's action; Rest the actions that followed it in its batch.
	Part
	Rest   []Part  `json:"rest,omitempty"`
	Answer *Answer `json:"answer,omitempty"`
	// Next is the PageKey of the page that came after the action; NextShape its ShapeKey, which
	// the page after a replay must have.
	Next      string `json:"next,omitempty"`
	NextShape string `json:"nextShape,omitempty"`
	// Skip says why the step is a hole: the model must take it (Action is empty in every part).
	Skip string `json:"skip,omitempty"`
	// AfterFailure says the run took the step right after an action that failed. Where the last
	// action failed, only such a step is served: page keys leave typed values out, so a page
	// whose typing failed can look like the one the run went on from.
	AfterFailure bool `json:"afterFailure,omitempty"`
}

// Part is one action of a step.
type Part struct {
	// Action is the action as decided (Act.Form, the engine's own form); empty in a hole.
	Action string  `json:"action,omitempty"`
	Name   string  `json:"name,omitempty"`
	Kind   Kind    `json:"kind,omitempty"`
	Target *Target `json:"target,omitempty"`
	// FromTask is where the value it types stands in the task's text, for a value the entry
	// must not keep (typed into a secret field): Action is then its blank form, and a replay
	// types what the current task's text holds there.
	FromTask *Span `json:"fromTask,omitempty"`
}

func (s Step) parts() []Part { return append([]Part{s.Part}, s.Rest...) }

// Store keeps entries (cachedb.Store).
type Store interface {
	GetEntry(ctx context.Context, tenantID, key string) (Entry, error)
	PutEntry(ctx context.Context, e Entry) error
	// DeleteEntry removes the entry if it still has this revision.
	DeleteEntry(ctx context.Context, tenantID, key, revision string) error
}

// Cache serves and learns entries.
type Cache struct {
	Store Store
	// TTL is an entry's life (DefaultTTL when zero).
	TTL time.Duration
	Now func() time.Time
}

// EntryKey identifies a task of a tenant in one engine (Open.Engine): a hash of the engine and
// the task's normalised text. The interact and run APIs see a page differently (a DOM, a
// snapshot) and act in their own grammars, so one's entry is no use to the other: they learn
// the same task separately.
func EntryKey(engine, task string) string {
	sum := sha256.Sum256([]byte(engine + "\x00" + TaskKey(task)))
	return hex.EncodeToString(sum[:16])
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now().UTC()
	}
	return time.Now().UTC()
}

func (c *Cache) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultTTL
}

// Open is what a step tells the cache when it starts.
type Open struct {
	// Engine names the engine that serves the step ("interact", "run"): entries are its own.
	Engine   string
	TenantID string
	TaskID   string
	Task     string
	// Trail is the task's trail as the previous step left it (nil for a new task).
	Trail []byte
	URL   string
	Page  *pagemodel.Page
	// LastFailed says the previous action failed: the client reported a failure or its
	// deterministic verification did.
	LastFailed bool
	// Disabled is a request's opt-out (cache: false): nothing is served, and the task is not
	// learned.
	Disabled bool
	// UserSpoke says the user wrote to the task since its last step (an answer, a new
	// instruction; not the approval of an action the payment gate held): the model reads it, so
	// nothing is served at this step.
	UserSpoke bool
	// Heard is what the task was told apart from its text and its pages, as far as the model
	// sees it: the user's messages and answers, web search findings. A value typed, or an answer
	// given, with words from there is this run's, and is never replayed.
	Heard []string
	// Redact removes the task's typed secret values from a text of the page (nil: none), before
	// the trail keeps anything of its words.
	Redact func(string) string
}

// Outcomes of a step, for metrics.cache, debug entries and the log line.
const (
	Hit  = "hit"
	Miss = "miss"
	Off  = "off"
)

// Outcome is what the cache did for a step.
type Outcome struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Dropped says the entry was dropped because a replay did not bring the expected page.
	Dropped bool `json:"dropped,omitempty"`
}

// Turn is the cache's part in one step.
type Turn struct {
	c       *Cache
	in      Open
	trail   trail
	pageKey string
	// aligned is the entry step the current page corresponds to, -1 for none.
	aligned int
	entry   *Entry
	outcome Outcome
	// answer is the result of the step that completed the task ("" for none).
	answer string
	// learned says what Finish did with the task's run ("" before it ran).
	learned string
}

// trail is what the task's item keeps of the task's steps for the cache.
type trail struct {
	Steps []trailStep `json:"steps,omitempty"`
	// Revision is the entry version the task follows; Cursor the next step of it.
	Revision string `json:"rev,omitempty"`
	Cursor   int    `json:"cursor,omitempty"`
	// Off says why the task is no longer served ("" while it may be).
	Off string `json:"off,omitempty"`
	// Lost says the task left the entry's path: nothing is served until the model takes the
	// step at the cursor itself (follow).
	Lost bool `json:"lost,omitempty"`
	// NoLearn says the task is never learned: a request opted out, or it ran too long.
	NoLearn bool `json:"noLearn,omitempty"`
}

type trailStep struct {
	Step
	Served bool `json:"served,omitempty"`
	// Expect is the shape of page a replayed step must bring (the entry's NextShape).
	Expect string `json:"expect,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	// Seen is the words its page showed (seenWords) and Typed the values it typed but secrets:
	// what Finish needs to find the steps that read a fact a later step used.
	Seen  []byte   `json:"seen,omitempty"`
	Typed []string `json:"typed,omitempty"`
	// Exact is ExactKey of its page ("" when the page is too large for one); Unchanged says the
	// page after it had the same: a failed action that changed nothing at all.
	Exact     string `json:"exact,omitempty"`
	Unchanged bool   `json:"unchanged,omitempty"`
	// Held says the payment gate held the step's action for the user's approval; see
	// Decided.Held.
	Held bool `json:"held,omitempty"`
}

// Open starts a step: it records what the previous step brought and checks a replay's
// expectation. A nil Cache gives a Turn that serves nothing and learns nothing.
func (c *Cache) Open(ctx context.Context, in Open) *Turn {
	t := &Turn{c: c, in: in, aligned: -1}
	if c == nil {
		t.outcome = Outcome{Status: Off, Reason: "no action cache is configured"}
		return t
	}
	if len(in.Trail) > 0 {
		if err := json.Unmarshal(in.Trail, &t.trail); err != nil {
			t.trail = trail{Off: "the task's cache trail is unreadable"}
		}
	}
	t.pageKey = PageKey(in.URL, in.Page)
	if t.trail.Off == "" && t.trail.Revision != "" {
		// The entry the task follows, read now: a step the engine decides without asking the
		// cache (a failed login's question) must still move the task along the entry's path.
		if e, err := c.Store.GetEntry(ctx, in.TenantID, EntryKey(in.Engine, in.Task)); err == nil && e.Revision == t.trail.Revision {
			t.entry = &e
		}
	}
	if n := len(t.trail.Steps); n > 0 {
		last := &t.trail.Steps[n-1]
		last.Next, last.NextShape, last.Failed = t.pageKey, ShapeKey(in.URL, in.Page), in.LastFailed
		last.Unchanged = last.Exact != "" && last.Exact == ExactKey(in.URL, in.Page)
		if last.Served && (in.LastFailed || last.Expect != "" && last.Expect != last.NextShape) {
			t.dropReplayed(ctx, last.Failed)
		}
	}
	return t
}

// dropReplayed hands the task to the model after a replay that did not do what it did before,
// and drops the entry so that no other task replays it; the task's own run, if it completes
// verified, writes the entry anew.
func (t *Turn) dropReplayed(ctx context.Context, failed bool) {
	why := "the replayed action did not bring the page it brought before"
	if failed {
		why = "the replayed action failed"
	}
	t.trail.Off = why
	t.outcome = Outcome{Status: Miss, Reason: why, Dropped: true}
	if err := t.c.Store.DeleteEntry(ctx, t.in.TenantID, EntryKey(t.in.Engine, t.in.Task), t.trail.Revision); err != nil && !errors.Is(err, ErrNotFound) {
		t.outcome.Reason += fmt.Sprintf(" (dropping the entry failed: %v)", err)
	}
}

// LastServed reports whether the last step of a task's trail came from the cache: an engine that
// runs an approved action apart from the step that was held (the run API's answer) says so.
func LastServed(b []byte) bool {
	var tr trail
	if json.Unmarshal(b, &tr) != nil || len(tr.Steps) == 0 {
		return false
	}
	return tr.Steps[len(tr.Steps)-1].Served
}

// Outcome is what the cache did for this step.
func (t *Turn) Outcome() Outcome {
	if t.outcome.Status == "" {
		return Outcome{Status: Miss, Reason: "the step did not consult the cache"}
	}
	return t.outcome
}

// Lookup offers the cached action for the current page: its Form as the run decided it, its
// Element the id of the one element of the current page that matches the cached target, and for
// an answer the Answer read from the current page. The engine rebuilds its action from these and
// still applies its own checks and policies to it.
func (t *Turn) Lookup(ctx context.Context) (Act, bool) {
	if t.c == nil {
		return Act{}, false
	}
	if t.in.Disabled {
		t.outcome = Outcome{Status: Off, Reason: "the request opted out (cache: false)"}
		return Act{}, false
	}
	if t.outcome.Status != "" {
		return Act{}, false
	}
	a, reason := t.lookup(ctx)
	if reason != "" {
		t.outcome = Outcome{Status: Miss, Reason: reason}
		return Act{}, false
	}
	t.outcome = Outcome{Status: Hit}
	return a, true
}

func (t *Turn) lookup(ctx context.Context) (Act, string) {
	if t.trail.Off != "" {
		return Act{}, t.trail.Off
	}
	e, why := t.follows(ctx)
	if e == nil {
		return Act{}, why
	}
	// The entry is known from here on, so that the model's step keeps the task on its path.
	t.entry = e
	if t.in.UserSpoke {
		return Act{}, "the user wrote to the task: the model reads it"
	}
	i, ok := t.align()
	if !ok {
		return Act{}, "the page differs from the one the verified run saw at the task's next step"
	}
	t.aligned = i
	if t.trail.Lost {
		return Act{}, "the task left the verified run's path: it is served again once the model takes the run's next step"
	}
	s := e.Steps[i]
	if s.Skip != "" {
		return Act{}, "the verified run left this step to the model: " + s.Skip
	}
	if t.in.LastFailed && !s.AfterFailure {
		return Act{}, "the last action failed, and the verified run took this step after one that worked"
	}
	return replay(s, t.in.Page, t.in.Task)
}

// follows is the entry the task follows (the one at hand when a new task begins), or why there
// is none.
func (t *Turn) follows(ctx context.Context) (*Entry, string) {
	e, err := t.entry, error(nil)
	if e == nil {
		e = &Entry{}
		*e, err = t.c.Store.GetEntry(ctx, t.in.TenantID, EntryKey(t.in.Engine, t.in.Task))
	}
	switch {
	case errors.Is(err, ErrNotFound):
		if len(t.trail.Steps) == 0 {
			// Nothing learned when the task began: don't read again at every step.
			t.trail.Off = "no verified run of this task"
		}
		return nil, "no verified run of this task"
	case err != nil:
		return nil, fmt.Sprintf("the cache could not be read: %v", err)
	}
	if t.trail.Revision == "" && len(t.trail.Steps) == 0 {
		t.trail.Revision = e.Revision
	}
	if e.Revision != t.trail.Revision {
		t.trail.Off = "the entry was rewritten while the task ran"
		return nil, t.trail.Off
	}
	return e, ""
}

// align finds the entry step for the current page: the step at the cursor, past waits the
// verified run needed and this run does not (a page that was still loading then). Nothing
// further on is ever a candidate: a step is served only when every step before it in the entry
// was replayed or taken by the model (follow), so a task never skips what the run did.
func (t *Turn) align() (int, bool) {
	steps := t.entry.Steps
	for i := t.trail.Cursor; i < len(steps); i++ {
		if steps[i].Page == t.pageKey {
			return i, true
		}
		if steps[i].Name != "wait" {
			return 0, false
		}
	}
	return 0, false
}

// replay makes the entry step's action, or batch, for the current page: every target must
// match exactly one element of it.
func replay(s Step, pg *pagemodel.Page, task string) (Act, string) {
	var acts []Act
	for _, p := range s.parts() {
		a := Act{Name: p.Name, Form: p.Action, Kind: p.Kind}
		if p.FromTask != nil {
			value, ok := p.FromTask.in(task)
			if !ok {
				return Act{}, "the value it types is not where the task's text held it"
			}
			a.Typed = value
		}
		if p.Target != nil {
			id, fits := resolve(pg, *p.Target)
			if fits != 1 {
				return Act{}, fmt.Sprintf("the target matches %d elements of the page, not exactly one", fits)
			}
			a.Element, a.HasElement = id, true
		}
		acts = append(acts, a)
	}
	a := acts[0]
	if len(acts) > 1 {
		a.Rest = acts[1:]
	}
	if s.Answer != nil {
		text, ok := s.Answer.Rederive(pg)
		if !ok {
			return Act{}, "the answer's facts could not be read again from the page as the run read them"
		}
		a.Answer = text
	}
	return a, ""
}

// Decided is the step the engine answers with, after its policies.
type Decided struct {
	// Action is the step's action, with the rest of its batch in Action.Rest.
	Action Act
	// Served says it came from Lookup unchanged.
	Served bool
	// Skip says why the step must not be replayed ("" when it may be): the model asked the
	// user, extracted a value, decided a branch, ran a server tool.
	Skip string
	// Variables are the task's extracted and given values: typing one of them replays a fact.
	Variables map[string]string
	// Held says the payment gate held the action for the user's approval, and the engine
	// decides it again at the next step, where the approval lets it through (the interact
	// API). The step is no step of the path: the cursor stays, and the entry leaves it out, as
	// the gate holds the replayed action again. An engine that runs the approved action itself
	// (the run API) records the action it will run, not Held.
	Held bool
}

// Record adds the step to the task's trail and returns the trail to store with the task.
func (t *Turn) Record(d Decided) []byte {
	if t.c == nil {
		return t.in.Trail
	}
	if t.in.Disabled {
		t.trail.NoLearn = true
		d.Skip = "the request opted out"
	}
	if d.Action.Kind == Completes {
		t.answer = d.Action.Answer
	}
	s := trailStep{Step: t.describe(d), Served: d.Served, Exact: ExactKey(t.in.URL, t.in.Page), Held: d.Held}
	for _, a := range append([]Act{d.Action}, d.Action.Rest...) {
		if a.Typed != "" && a.Secret == "" && !a.Masked && !(a.HasElement && t.in.Page.Secret(a.Element)) {
			s.Typed = append(s.Typed, a.Typed)
		}
	}
	// A policy that cut or changed the offered batch makes the step the model's own.
	switch {
	case d.Held:
		s.Served = false
	case d.Served && t.aligned >= 0 && len(d.Action.Rest) == len(t.entry.Steps[t.aligned].Rest):
		s.Expect = t.entry.Steps[t.aligned].NextShape
		t.trail.Cursor, t.trail.Lost = t.aligned+1, false
	default:
		s.Served = false
		s.Seen = seenWords(t.in.Page, t.in.Task, t.in.Redact)
		t.follow(s.Step)
	}
	t.trail.Steps = append(t.trail.Steps, s)
	if len(t.trail.Steps) > MaxSteps {
		// The trail rides on the task's item, written every step: a task this long is not learned.
		t.trail = trail{Off: "the task is too long to learn", NoLearn: true}
	}
	b, err := json.Marshal(t.trail)
	if err != nil {
		return t.in.Trail
	}
	return b
}

// follow keeps the cursor on the entry while the model decides. The model's step moves it past
// the entry step at the cursor (or past the waits before it) only when it is that step: the
// same actions on the same targets, and for a hole of the entry (a step the run left to the
// model) the same kinds of action on the same targets, whatever they typed. A wait changes
// nothing; any other step leaves the path, and nothing is served until the model takes the
// step at the cursor: no later step of the entry is ever served over one that was not taken.
func (t *Turn) follow(s Step) {
	if t.entry == nil || t.trail.Off != "" {
		return
	}
	steps := t.entry.Steps
	for i := t.trail.Cursor; i < len(steps); i++ {
		if takes(steps[i], s) {
			t.trail.Cursor, t.trail.Lost = i+1, false
			return
		}
		if steps[i].Name != "wait" {
			break
		}
	}
	if s.Name != "wait" || len(s.Rest) > 0 {
		t.trail.Lost = true
	}
}

// takes reports whether the step taken is the entry's step: for a hole, its actions' names and
// targets; for any other step, its actions exactly.
func takes(entry, taken Step) bool {
	ep, tp := entry.parts(), taken.parts()
	if len(ep) != len(tp) {
		return false
	}
	for i := range ep {
		if ep[i].Name != tp[i].Name || !sameTarget(ep[i].Target, tp[i].Target) || entry.Skip == "" && ep[i].Action != tp[i].Action {
			return false
		}
	}
	return true
}

func sameTarget(a, b *Target) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// describe is the step as an entry would keep it. A hole keeps its actions' names and targets
// (to know when the model takes it) and never their forms, which may hold what it typed.
func (t *Turn) describe(d Decided) Step {
	s := Step{Page: t.pageKey, Skip: d.Skip}
	acts := append([]Act{d.Action}, d.Action.Rest...)
	for i, a := range acts {
		p, why := describePart(a, d.Variables, t.in.Page, t.in.Task)
		if i == 0 {
			s.Part = p
		} else {
			s.Rest = append(s.Rest, p)
			if a.Kind != Continues && why == "" {
				why = "its batch does more than act on the page"
			}
		}
		if s.Skip == "" {
			s.Skip = why
		}
	}
	if s.Skip == "" && len(t.in.Heard) > 0 {
		heard := heardWords(t.in.Heard, t.in.Task)
		for _, a := range acts {
			if a.Secret == "" && !a.Masked && usesHeard(a.Typed+" "+a.Answer, heard) {
				s.Skip = "it uses what the user or a web search told the task"
				break
			}
		}
	}
	if a := d.Action; s.Skip == "" && a.Kind == Completes && a.Answer != "" {
		ans, ok := learnAnswer(a.Answer, t.in.Task, t.in.Page)
		if !ok {
			s.Skip = "its answer could not be traced to the page"
		} else {
			s.Answer = &ans
		}
	}
	if s.Skip != "" {
		s.makeHole(s.Skip)
	}
	return s
}

// makeHole leaves the step to the model.
func (s *Step) makeHole(why string) {
	s.Skip, s.Answer, s.Action = why, nil, ""
	for i := range s.Rest {
		s.Rest[i].Action = ""
	}
}

// describePart is one action as an entry keeps it, with why it must not be replayed ("" when
// it may be).
func describePart(a Act, vars map[string]string, pg *pagemodel.Page, task string) (Part, string) {
	p := Part{Action: a.Form, Name: a.Name, Kind: a.Kind}
	why := unsafeToReplay(a, vars, pg)
	if why == typesSecret && a.Blank != "" {
		// A value the task's text gives is kept as where it stands there, never as itself.
		if span, ok := spanOf(task, a.Typed); ok {
			p.Action, p.FromTask, why = a.Blank, &span, ""
		}
	}
	if a.HasElement {
		target, found := targetOf(pg, a.Element)
		_, fits := resolve(pg, target)
		switch {
		case !found:
			why = orReason(why, "its element is not on the page")
		case fits != 1:
			why = orReason(why, "its element has look-alikes on the page")
		default:
			p.Target = &target
		}
	}
	return p, why
}

func orReason(first, then string) string {
	if first != "" {
		return first
	}
	return then
}

const typesSecret = "it types into a secret field"

// unsafeToReplay says why an action must never come from the cache.
func unsafeToReplay(a Act, vars map[string]string, pg *pagemodel.Page) string {
	switch a.Kind {
	case AsksUser:
		return "it asks the user"
	case Fails:
		return "it gives up"
	case Server:
		return "it runs on the server"
	}
	if a.Masked || a.HasElement && pg.Secret(a.Element) && a.Secret == "" {
		// A named secret is replayed by its name; a typed value is never kept.
		return typesSecret
	}
	if a.Typed != "" {
		for _, v := range vars {
			if v == a.Typed {
				return "it uses a value read during the task"
			}
		}
	}
	return ""
}

// sameStep reports whether two steps are the same actions on the same elements of the same page.
func sameStep(a, b Step) bool {
	return a.Page == b.Page && a.Skip == b.Skip && a.AfterFailure == b.AfterFailure && takes(a, b)
}

// Finish learns the task's trail when the task completed and nothing opted out. Only steps
// that worked are served: a step whose action failed, and the step that reacted to it, become
// holes the model takes (markFailures). A run that took the entry's steps again confirms it
// (Runs+1, TTL renewed); one that took others rewrites it. The steps that read a fact the task's
// result or a later typed value used, and the steps that used it, become holes too
// (markFactReading).
func (t *Turn) Finish(ctx context.Context, completed bool) error {
	switch {
	case t.c == nil:
		return nil
	case t.in.Disabled || t.trail.NoLearn:
		t.learned = "not learned: a request opted out, or the task ran too long"
		return nil
	case !completed || len(t.trail.Steps) == 0:
		return nil
	}
	markFactReading(t.trail.Steps, t.answer, t.in.Task)
	steps := markFailures(t.trail.Steps)
	if len(steps) == 0 {
		t.learned = "not learned: no step did anything"
		return nil
	}
	now := t.c.now()
	key := EntryKey(t.in.Engine, t.in.Task)
	e := Entry{
		TenantID: t.in.TenantID, Key: key, Task: TaskKey(t.redact(t.in.Task)), Steps: steps, Runs: 1,
		LearnedFrom: t.in.TaskID, UpdatedAt: now, ExpiresAt: now.Add(t.c.ttl()),
	}
	old, err := t.c.Store.GetEntry(ctx, t.in.TenantID, key)
	switch {
	case err == nil && sameSteps(old.Steps, steps):
		e.Runs, e.Revision, e.LearnedFrom = old.Runs+1, old.Revision, old.LearnedFrom
	case err != nil && !errors.Is(err, ErrNotFound):
		return fmt.Errorf("read cache entry: %w", err)
	default:
		e.Revision = newRevision()
	}
	if err := t.c.Store.PutEntry(ctx, e); err != nil {
		return fmt.Errorf("write cache entry: %w", err)
	}
	t.learned = fmt.Sprintf("learned %d steps, %d of them left to the model (revision %s, %d verified runs)", len(steps), holes(steps), e.Revision, e.Runs)
	return nil
}

// markFailures is the trail as an entry keeps it. A single action that failed and left the page
// exactly as it was, counters and typed values too (a click something covered), changed
// nothing: the path is the same without it, so it is left out. Any other failure did something
// (a batch ran the actions before the failed one; a rejected login showed its error): it keeps
// its place as a hole, so no later step is served before the model has taken it, and so does
// the step that reacted to it, which answered what the failure said. Every kept step notes
// whether it came right after a failure (AfterFailure). A step the gate held is no step of the
// path (Decided.Held).
func markFailures(trail []trailStep) []Step {
	var steps []Step
	for i, s := range trail {
		if s.Held || s.Failed && s.Unchanged && len(s.Rest) == 0 {
			continue
		}
		step := s.Step
		if i > 0 {
			prev := trail[i-1]
			step.AfterFailure = prev.Failed
			if prev.Failed && !(prev.Unchanged && len(prev.Rest) == 0) && step.Skip == "" {
				step.makeHole("it reacted to an action that failed in the verified run")
			}
		}
		if s.Failed && step.Skip == "" {
			step.makeHole("its action failed in the verified run")
		}
		steps = append(steps, step)
	}
	return steps
}

// redact removes the task's typed secret values from a text the cache keeps (a password the
// task gives in words).
func (t *Turn) redact(s string) string {
	if t.in.Redact == nil {
		return s
	}
	return t.in.Redact(s)
}

func holes(steps []Step) int {
	n := 0
	for _, s := range steps {
		if s.Skip != "" {
			n++
		}
	}
	return n
}

// Log writes what the cache did for the step, and what it learned when the task ended, as a
// debug line: why a step missed is the first thing to read when a repeat calls the model.
func (t *Turn) Log(ctx context.Context, l *slog.Logger) {
	o := t.Outcome()
	attrs := []any{"status", o.Status, "reason", o.Reason, "dropped", o.Dropped}
	if t.learned != "" {
		attrs = append(attrs, "learned", t.learned)
	}
	l.DebugContext(ctx, "action cache", attrs...)
}

func sameSteps(a, b []Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameStep(a[i], b[i]) || a[i].Next != b[i].Next {
			return false
		}
	}
	return true
}

func newRevision() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Reject turns an offered action into a miss: the engine's own checks refused it.
func (t *Turn) Reject(reason string) {
	// The engine's reason may quote the action, and a replayed action may type a password the
	// task gives: the outcome goes to the log line, the debug entry and debugInfo.
	t.outcome = Outcome{Status: Miss, Reason: t.redact(reason)}
	t.aligned = -1
}
