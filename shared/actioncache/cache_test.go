package actioncache_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/actioncache/cachetest"
	"github.com/screenagent/backend/shared/pagemodel"
)

const (
	task     = "Open the settings and turn on dark mode"
	homeDOM  = `<nav><a id="1" href="/settings">Settings</a><a id="2" href="/help">Help</a></nav>`
	setDOM   = `<h1>Settings</h1><label>Dark mode <input id="3" type="checkbox" name="dark"/></label>`
	doneDOM  = `<h1>Settings</h1><p>Saved</p><label>Dark mode <input id="3" type="checkbox" name="dark" checked/></label>`
	home     = "https://app.example/"
	settings = "https://app.example/settings"
)

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// newCache is a cache on an in-memory store (cachetest, held to cachedb's behaviour by cachedb's tests).
func newCache(t *testing.T) (*actioncache.Cache, *cachetest.Store, *clock) {
	t.Helper()
	c := &clock{now: time.Now().UTC()}
	store := cachetest.New()
	store.Now = c.Now
	return &actioncache.Cache{Store: store, TTL: time.Hour, Now: c.Now}, store, c
}

type visit struct {
	url, dom string
	action   string
	failed   bool // the client reports this visit's previous action failed
}

var settingsRun = []visit{{home, homeDOM, "click(1)", false}, {settings, setDOM, "click(3)", false}, {settings, doneDOM, "finish()", false}}

// play runs a task over the visits: each step takes the cache's action when it offers one, else
// the visit's. It returns the cache's outcome of each step.
func play(t *testing.T, c *actioncache.Cache, tenant, taskID string, visits []visit) []actioncache.Outcome {
	t.Helper()
	out, _, _ := playTask(t, c, tenant, taskID, task, visits)
	return out
}

// playTask is play for any task; it also gives the actions taken, as the visits write them, and
// the task's last trail.
func playTask(t *testing.T, c *actioncache.Cache, tenant, taskID, taskText string, visits []visit) ([]actioncache.Outcome, []string, []byte) {
	t.Helper()
	return playHeard(t, c, tenant, taskID, taskText, visits, nil)
}

// playHeard is playTask for a task that was told the heard texts (the user's answers).
func playHeard(t *testing.T, c *actioncache.Cache, tenant, taskID, taskText string, visits []visit, heard []string) ([]actioncache.Outcome, []string, []byte) {
	t.Helper()
	ctx := context.Background()
	var trail []byte
	var out []actioncache.Outcome
	var taken []string
	for _, v := range visits {
		pg := pagemodel.Parse(v.dom)
		turn := c.Open(ctx, actioncache.Open{TenantID: tenant, TaskID: taskID, Task: taskText, Trail: trail, URL: v.url, Page: pg, LastFailed: v.failed, Heard: heard})
		a, served := turn.Lookup(ctx)
		if !served {
			a = act(v.action)
		}
		trail = turn.Record(actioncache.Decided{Action: a, Served: served})
		out = append(out, turn.Outcome())
		taken = append(taken, write(a))
		if a.Kind == actioncache.Completes || a.Kind == actioncache.Fails {
			if err := turn.Finish(ctx, a.Kind == actioncache.Completes); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out, taken, trail
}

var (
	typeCall   = regexp.MustCompile(`^setValue\((\d+), "(.*)"\)$`)
	secretCall = regexp.MustCompile(`^setValue\((\d+), secret\("(.*)"\)\)$`)
	finishCall = regexp.MustCompile(`^finish\("(.*)"\)$`)
)

// act reads the visits' actions: click(N), setValue(N, "text"), setValue(N, secret("name")),
// finish(), finish("answer"), fail("…") and askUser("…"); a batch joins them with "; ".
func act(s string) actioncache.Act {
	calls := strings.Split(s, "; ")
	a := actOne(calls[0])
	for _, c := range calls[1:] {
		a.Rest = append(a.Rest, actOne(c))
	}
	return a
}

func actOne(s string) actioncache.Act {
	var id int
	switch m := typeCall.FindStringSubmatch(s); {
	case m != nil:
		id, _ = strconv.Atoi(m[1])
		return actioncache.Act{Name: "setValue", Form: `setValue(#, "` + m[2] + `")`, Element: id, HasElement: true, Typed: m[2]}
	case secretCall.MatchString(s):
		m := secretCall.FindStringSubmatch(s)
		id, _ = strconv.Atoi(m[1])
		return actioncache.Act{Name: "setValue", Form: `setValue(#, secret("` + m[2] + `"))`, Element: id, HasElement: true, Secret: m[2]}
	case finishCall.MatchString(s):
		return actioncache.Act{Name: "finish", Form: "finish()", Kind: actioncache.Completes, Answer: finishCall.FindStringSubmatch(s)[1]}
	case strings.HasPrefix(s, "finish"):
		return actioncache.Act{Name: "finish", Form: s, Kind: actioncache.Completes}
	case strings.HasPrefix(s, "fail"):
		return actioncache.Act{Name: "fail", Form: s, Kind: actioncache.Fails}
	case strings.HasPrefix(s, "askUser"):
		return actioncache.Act{Name: "askUser", Form: s, Kind: actioncache.AsksUser}
	}
	fmt.Sscanf(s, "click(%d)", &id)
	return actioncache.Act{Name: "click", Form: "click(#)", Element: id, HasElement: true}
}

// write is the action as the visits write it.
func write(a actioncache.Act) string {
	parts := []string{writeOne(a)}
	for _, r := range a.Rest {
		parts = append(parts, writeOne(r))
	}
	return strings.Join(parts, "; ")
}

func writeOne(a actioncache.Act) string {
	switch {
	case a.Kind == actioncache.Completes && a.Answer != "":
		return `finish("` + a.Answer + `")`
	case a.HasElement:
		return strings.Replace(a.Form, "#", strconv.Itoa(a.Element), 1)
	}
	return a.Form
}

func statuses(os []actioncache.Outcome) []string {
	var s []string
	for _, o := range os {
		s = append(s, o.Status)
	}
	return s
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEntriesServeTheirTenantUntilTheyExpire(t *testing.T) {
	t.Parallel()
	c, store, clk := newCache(t)
	allMiss := []string{"miss", "miss", "miss"}
	allHit := []string{"hit", "hit", "hit"}
	if got := statuses(play(t, c, "ten-a", "t1", settingsRun)); !equal(got, allMiss) {
		t.Fatalf("first run = %v, want %v", got, allMiss)
	}
	if got := statuses(play(t, c, "ten-b", "t2", settingsRun)); !equal(got, allMiss) {
		t.Errorf("another tenant = %v, want %v", got, allMiss)
	}
	if got := statuses(play(t, c, "ten-a", "t3", settingsRun)); !equal(got, allHit) {
		t.Errorf("second run = %v, want %v", got, allHit)
	}
	e, err := store.GetEntry(context.Background(), "ten-a", actioncache.EntryKey("", task))
	if err != nil || e.Runs != 2 {
		t.Errorf("entry after two agreeing runs: runs %d (%v), want 2", e.Runs, err)
	}
	clk.now = clk.now.Add(2 * time.Hour)
	if got := statuses(play(t, c, "ten-a", "t4", settingsRun)); !equal(got, allMiss) {
		t.Errorf("after the TTL = %v, want %v", got, allMiss)
	}
}

func TestFailedReplaysAndFailedRunsAreNotKept(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		replay []visit
		want   []string
	}{
		{"the client reports the replayed action failed",
			[]visit{{home, homeDOM, "click(1)", false}, {home, homeDOM, "click(1)", true}, {settings, setDOM, "click(3)", false}},
			[]string{"hit", "miss", "miss"}},
		{"the replayed action brought another kind of page",
			[]visit{{home, homeDOM, "click(1)", false}, {settings, `<h1>Error</h1><p>Try later</p>`, "fail(\"down\")", false}},
			[]string{"hit", "miss"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, store, _ := newCache(t)
			play(t, c, "ten-a", "t1", settingsRun)
			got := play(t, c, "ten-a", "t2", tc.replay)
			if !equal(statuses(got), tc.want) {
				t.Fatalf("replay = %v, want %v", statuses(got), tc.want)
			}
			if !got[1].Dropped {
				t.Errorf("outcome after the failed replay = %+v, want the entry dropped", got[1])
			}
			if _, err := store.GetEntry(context.Background(), "ten-a", actioncache.EntryKey("", task)); !errors.Is(err, actioncache.ErrNotFound) {
				t.Errorf("entry after the failed replay: %v, want ErrNotFound", err)
			}
		})
	}
	t.Run("a failed step that changed the page, and the step that reacted to it, are the model's", func(t *testing.T) {
		t.Parallel()
		c, store, _ := newCache(t)
		// The click on "Dark mode" failed and showed an error; the model clicked again.
		const errDOM = `<h1>Settings</h1><p role="alert">Could not save, try again</p><label>Dark mode <input id="3" type="checkbox" name="dark"/></label>`
		retried := []visit{{home, homeDOM, "click(1)", false}, {settings, setDOM, "click(3)", false}, {settings, errDOM, "click(3)", true}, {settings, doneDOM, "finish()", false}}
		play(t, c, "ten-a", "t1", retried)
		e, err := store.GetEntry(context.Background(), "ten-a", actioncache.EntryKey("", task))
		if err != nil {
			t.Fatal(err)
		}
		var skips []string
		for _, s := range e.Steps {
			skips = append(skips, s.Skip)
		}
		if want := []string{"", "its action failed in the verified run", "it reacted to an action that failed in the verified run", ""}; !equal(skips, want) {
			t.Errorf("entry's holes = %q, want %q", skips, want)
		}
		if got := statuses(play(t, c, "ten-a", "t2", retried)); !equal(got, []string{"hit", "miss", "miss", "hit"}) {
			t.Errorf("the same run again = %v, want the steps that worked served and the rest the model's", got)
		}
		if got := statuses(play(t, c, "ten-a", "t3", settingsRun)); !equal(got, []string{"hit", "miss", "miss"}) {
			t.Errorf("a run whose click works = %v, want the model from the failed step on", got)
		}
	})
	t.Run("a failed step that changed nothing is left out", func(t *testing.T) {
		t.Parallel()
		c, store, _ := newCache(t)
		covered := []visit{{home, homeDOM, "click(1)", false}, {home, homeDOM, "click(1)", true}, {settings, setDOM, "click(3)", false}, {settings, doneDOM, "finish()", false}}
		play(t, c, "ten-a", "t1", covered)
		e, err := store.GetEntry(context.Background(), "ten-a", actioncache.EntryKey("", task))
		if err != nil || len(e.Steps) != 3 {
			t.Fatalf("entry = %d steps (%v), want the 3 that worked", len(e.Steps), err)
		}
		if got := statuses(play(t, c, "ten-a", "t2", settingsRun)); !equal(got, []string{"hit", "hit", "hit"}) {
			t.Errorf("run after it = %v, want all hits", got)
		}
	})
}

func TestOptedOutTasksAreNeitherServedNorLearned(t *testing.T) {
	t.Parallel()
	c, _, _ := newCache(t)
	play(t, c, "ten-a", "t1", settingsRun)
	ctx := context.Background()
	turn := c.Open(ctx, actioncache.Open{TenantID: "ten-a", TaskID: "t2", Task: task, URL: home, Page: pagemodel.Parse(homeDOM), Disabled: true})
	if _, served := turn.Lookup(ctx); served || turn.Outcome().Status != actioncache.Off {
		t.Errorf("opted-out lookup served %v with %+v, want nothing and off", served, turn.Outcome())
	}
}
