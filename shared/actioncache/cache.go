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
	"time"

	"github.com/screenagent/backend/shared/agent/page"
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

// Step is one step of an entry.
type Step struct {
	// Page is the PageKey of the page the step was decided on.
	Page string `json:"page"`
	// Action is the action as decided on that page (Act.Form, the engine's own form); empty when
	// the step cannot be replayed (Skip says why).
	Action string  `json:"action,omitempty"`
	Name   string  `json:"name,omitempty"`
	Kind   Kind    `json:"kind,omitempty"`
	Target *Target `json:"target,omitempty"`
	Answer *Answer `json:"answer,omitempty"`
	// Next is the PageKey of the page that came after the action; NextShape its ShapeKey, which
	// the page after a replay must have.
	Next      string `json:"next,omitempty"`
	NextShape string `json:"nextShape,omitempty"`
	Skip      string `json:"skip,omitempty"`
}

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

// EntryKey identifies a task of a tenant: a hash of its normalised text.
func EntryKey(task string) string {
	sum := sha256.Sum256([]byte(TaskKey(task)))
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
	TenantID string
	TaskID   string
	Task     string
	// Trail is the task's trail as the previous step left it (nil for a new task).
	Trail []byte
	URL   string
	Page  *page.Page
	// LastFailed says the previous action failed: the client reported a failure or its
	// deterministic verification did.
	LastFailed bool
	// Disabled is a request's opt-out (cache: false): nothing is served, and the task is not
	// learned.
	Disabled bool
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
}

// trail is what the task's item keeps of the task's steps for the cache.
type trail struct {
	Steps []trailStep `json:"steps,omitempty"`
	// Revision is the entry version the task follows; Cursor the next step of it.
	Revision string `json:"rev,omitempty"`
	Cursor   int    `json:"cursor,omitempty"`
	// Off says why the task is no longer served ("" while it may be).
	Off string `json:"off,omitempty"`
	// Lost says the task left the entry's path: the cursor no longer says where it is.
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
	if n := len(t.trail.Steps); n > 0 {
		last := &t.trail.Steps[n-1]
		last.Next, last.NextShape, last.Failed = t.pageKey, ShapeKey(in.URL, in.Page), in.LastFailed
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
	if err := t.c.Store.DeleteEntry(ctx, t.in.TenantID, EntryKey(t.in.Task), t.trail.Revision); err != nil && !errors.Is(err, ErrNotFound) {
		t.outcome.Reason += fmt.Sprintf(" (dropping the entry failed: %v)", err)
	}
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
	e, err := t.c.Store.GetEntry(ctx, t.in.TenantID, EntryKey(t.in.Task))
	switch {
	case errors.Is(err, ErrNotFound):
		if len(t.trail.Steps) == 0 {
			// Nothing learned when the task began: don't read again at every step.
			t.trail.Off = "no verified run of this task"
		}
		return Act{}, "no verified run of this task"
	case err != nil:
		return Act{}, fmt.Sprintf("the cache could not be read: %v", err)
	}
	if t.trail.Revision == "" && len(t.trail.Steps) == 0 {
		t.trail.Revision = e.Revision
	}
	if e.Revision != t.trail.Revision {
		t.trail.Off = "the entry was rewritten while the task ran"
		return Act{}, t.trail.Off
	}
	t.entry = &e
	i, ok := t.align()
	if !ok {
		return Act{}, "the page differs from the one the verified run saw at this step"
	}
	t.aligned = i
	s := e.Steps[i]
	if s.Skip != "" {
		return Act{}, "the verified run left this step to the model: " + s.Skip
	}
	return replay(s, t.in.Page)
}

// align finds the entry step for the current page: the step at the cursor, past waits the
// verified run needed and this run does not (a page that was still loading then). A task that
// left the entry's path finds its way back only on a page that exactly one step further on was
// decided on: several (a form filled field by field) is no place to guess.
func (t *Turn) align() (int, bool) {
	steps := t.entry.Steps
	if t.trail.Lost {
		found, n := 0, 0
		for i := t.trail.Cursor; i < len(steps); i++ {
			if steps[i].Page == t.pageKey {
				found, n = i, n+1
			}
		}
		return found, n == 1
	}
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

// replay makes the entry step's action for the current page.
func replay(s Step, pg *page.Page) (Act, string) {
	a := Act{Name: s.Name, Form: s.Action, Kind: s.Kind}
	if s.Target != nil {
		id, fits := resolve(pg, *s.Target)
		if fits != 1 {
			return Act{}, fmt.Sprintf("the target matches %d elements of the page, not exactly one", fits)
		}
		a.Element, a.HasElement = id, true
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
	Action Act
	// Served says it came from Lookup unchanged.
	Served bool
	// Skip says why the step must not be replayed ("" when it may be): the model asked the
	// user, extracted a value, decided a branch, ran a server tool.
	Skip string
	// Variables are the task's extracted and given values: typing one of them replays a fact.
	Variables map[string]string
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
	s := trailStep{Step: t.describe(d), Served: d.Served}
	if d.Served && t.aligned >= 0 {
		s.Expect = t.entry.Steps[t.aligned].NextShape
		t.trail.Cursor, t.trail.Lost = t.aligned+1, false
	} else {
		t.follow(s.Step, d.Action)
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

// follow keeps the task aligned with its entry while the model decides: a step the model takes
// as the run did, or a wait, keeps it; any other step loses the path (align finds it again).
func (t *Turn) follow(s Step, a Act) {
	if t.entry == nil || t.trail.Off != "" {
		return
	}
	if t.aligned >= 0 {
		cached := t.entry.Steps[t.aligned]
		if cached.Skip != "" || sameStep(cached, s) {
			t.trail.Cursor, t.trail.Lost = t.aligned+1, false
			return
		}
	}
	if a.Name != "wait" {
		t.trail.Lost = true
	}
}

// describe is the step as an entry would keep it.
func (t *Turn) describe(d Decided) Step {
	a := d.Action
	s := Step{Page: t.pageKey, Name: a.Name, Kind: a.Kind, Skip: d.Skip}
	if s.Skip == "" {
		s.Skip = unsafeToReplay(d, t.in.Page)
	}
	if s.Skip != "" {
		return s
	}
	if a.HasElement {
		target, found := targetOf(t.in.Page, a.Element)
		if !found {
			s.Skip = "its element is not on the page"
			return s
		}
		if _, fits := resolve(t.in.Page, target); fits != 1 {
			s.Skip = "its element has look-alikes on the page"
			return s
		}
		s.Target = &target
	}
	if a.Kind == Completes && a.Answer != "" {
		ans, ok := learnAnswer(a.Answer, t.in.Task, t.in.Page)
		if !ok {
			s.Skip = "its answer could not be traced to the page"
			return s
		}
		s.Answer = &ans
	}
	s.Action = a.Form
	return s
}

// unsafeToReplay says why an action must never come from the cache.
func unsafeToReplay(d Decided, pg *page.Page) string {
	a := d.Action
	switch a.Kind {
	case AsksUser:
		return "it asks the user"
	case Fails:
		return "it gives up"
	case Server:
		return "it runs on the server"
	}
	if a.HasElement && pg.Secret(a.Element) {
		return "it types into a secret field"
	}
	if a.Typed != "" {
		for _, v := range d.Variables {
			if v == a.Typed {
				return "it uses a value read during the task"
			}
		}
	}
	return ""
}

// sameStep reports whether two steps are the same action on the same element of the same page.
func sameStep(a, b Step) bool {
	if a.Page != b.Page || a.Action != b.Action || (a.Target == nil) != (b.Target == nil) {
		return false
	}
	return a.Target == nil || *a.Target == *b.Target
}

// Finish learns the task's trail when the task completed: every step kept verified, none failed
// but those that changed nothing, nothing opted out. A run that took the entry's steps again confirms it (Runs+1, TTL renewed);
// one that took others rewrites it.
func (t *Turn) Finish(ctx context.Context, completed bool) error {
	if t.c == nil || t.in.Disabled || t.trail.NoLearn || !completed || len(t.trail.Steps) == 0 {
		return nil
	}
	// A failed action that left the page as it was (a click something covered) changed nothing:
	// the run's path is the same without it. Any other failure leaves the run unlearned.
	var steps []Step
	for _, s := range t.trail.Steps {
		switch {
		case !s.Failed:
			steps = append(steps, s.Step)
		case s.Next != s.Page:
			return nil
		}
	}
	if len(steps) == 0 {
		return nil
	}
	now := t.c.now()
	key := EntryKey(t.in.Task)
	e := Entry{
		TenantID: t.in.TenantID, Key: key, Task: TaskKey(t.in.Task), Steps: steps, Runs: 1,
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
	return nil
}

func sameSteps(a, b []Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Skip != b[i].Skip || a[i].Skip == "" && !sameStep(a[i], b[i]) || a[i].Next != b[i].Next {
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
	t.outcome = Outcome{Status: Miss, Reason: reason}
	t.aligned = -1
}
