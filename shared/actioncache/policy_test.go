package actioncache_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/pagemodel"
)

const (
	subscribe    = "https://news.example/subscribe"
	subscribed   = "https://news.example/welcome"
	subscribeDOM = `<h1>Newsletter</h1><label>Name <input id="1" name="name"/></label><label>Email <input id="2" name="email"/></label><button id="3">Subscribe</button>`
	welcomeDOM   = `<h1>Welcome</h1><p>You are subscribed.</p>`
)

func TestValuesTheTaskWasToldAreLeftToTheModel(t *testing.T) {
	t.Parallel()
	const batch = `setValue(1, "Ada Lovelace"); setValue(2, "ada@example.com"); click(3)`
	for _, tc := range []struct {
		name, task string
		heard      []string
		want       []string
	}{
		{"the task gives the values", "Subscribe Ada Lovelace with ada@example.com to the newsletter", nil, []string{"hit", "hit"}},
		{"the model chose a value", "Subscribe ada@example.com to the newsletter", nil, []string{"hit", "hit"}},
		// A repeat asks the user again, who may answer otherwise: this run's answer is no value
		// to replay.
		{"the user told the task a value", "Subscribe ada@example.com to the newsletter", []string{"Her name is Ada Lovelace."}, []string{"miss", "hit"}},
		{"a web search told the task a value", "Subscribe ada@example.com to the newsletter", []string{"Search results: Ada Lovelace, mathematician"}, []string{"miss", "hit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := newCache(t)
			run := []visit{{subscribe, subscribeDOM, batch, false}, {subscribed, welcomeDOM, "finish()", false}}
			playHeard(t, c, "ten-a", "t1", tc.task, run, tc.heard)
			if got, _, _ := playHeard(t, c, "ten-a", "t2", tc.task, run, tc.heard); !equal(statuses(got), tc.want) {
				t.Errorf("repeat = %v, want %v", statuses(got), tc.want)
			}
		})
	}
}

func TestAnAnswerWithWhatTheUserSaidIsTheModels(t *testing.T) {
	t.Parallel()
	const task = "Subscribe ada@example.com to the newsletter"
	c, _, _ := newCache(t)
	run := []visit{{subscribe, subscribeDOM, `setValue(2, "ada@example.com"); click(3)`, false}, {subscribed, welcomeDOM, `finish("Subscribed, as Grace asked.")`, false}}
	heard := []string{"Grace says: subscribe"}
	playHeard(t, c, "ten-a", "t1", task, run, heard)
	if got, _, _ := playHeard(t, c, "ten-a", "t2", task, run, heard); !equal(statuses(got), []string{"hit", "miss"}) {
		t.Errorf("repeat = %v, want the answer left to the model", statuses(got))
	}
}

func TestAfterAFailedActionOnlyAStepTheRunTookAfterAFailureIsServed(t *testing.T) {
	t.Parallel()
	const task = "Subscribe ada@example.com to the newsletter"
	// The run's first step is the model's (it types the name the user gave); a page whose typing
	// failed keeps its key, since page keys leave typed values out.
	heard := []string{"My name is Ada Lovelace"}
	learn := []visit{
		{subscribe, subscribeDOM, `setValue(1, "Ada Lovelace")`, false},
		{subscribe, subscribeDOM, `setValue(2, "ada@example.com"); click(3)`, false},
		{subscribed, welcomeDOM, "finish()", false},
	}
	typingFailed := []visit{
		{subscribe, subscribeDOM, `setValue(1, "Ada Lovelace")`, false},
		{subscribe, subscribeDOM, `setValue(1, "Ada Lovelace")`, true},
	}
	c, _, _ := newCache(t)
	playHeard(t, c, "ten-a", "t1", task, learn, heard)
	got, _, _ := playHeard(t, c, "ten-a", "t2", task, typingFailed, heard)
	if !equal(statuses(got), []string{"miss", "miss"}) || got[1].Reason != "the last action failed, and the verified run took this step after one that worked" {
		t.Errorf("after the model's typing failed = %+v, want the model again", got)
	}
	if got, _, _ := playHeard(t, c, "ten-a", "t3", task, learn, heard); !equal(statuses(got), []string{"miss", "hit", "hit"}) {
		t.Errorf("after the model's typing worked = %v, want the rest served", statuses(got))
	}
}

func TestAStepAfterTheUserWroteIsTheModels(t *testing.T) {
	t.Parallel()
	c, _, _ := newCache(t)
	play(t, c, "ten-a", "t1", settingsRun)
	ctx := context.Background()
	turn := c.Open(ctx, actioncache.Open{TenantID: "ten-a", TaskID: "t2", Task: task, URL: home, Page: pagemodel.Parse(homeDOM), UserSpoke: true})
	if _, served := turn.Lookup(ctx); served || turn.Outcome().Reason != "the user wrote to the task: the model reads it" {
		t.Errorf("lookup after the user wrote served %v with %+v, want the model", served, turn.Outcome())
	}
	// The model took the entry's step: the task is on the entry's path, and the next step is served.
	trail := turn.Record(actioncache.Decided{Action: act("click(1)")})
	next := c.Open(ctx, actioncache.Open{TenantID: "ten-a", TaskID: "t2", Task: task, Trail: trail, URL: settings, Page: pagemodel.Parse(setDOM)})
	if a, served := next.Lookup(ctx); !served || write(a) != "click(3)" {
		t.Errorf("the step after = %q (served %v, %+v), want click(3) from the cache", write(a), served, next.Outcome())
	}
}

func TestAnActionTheGateHeldIsNoStepOfThePath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, store, _ := newCache(t)
	ask := actioncache.Act{Name: "askUser", Form: `askUser("Pay?")`, Kind: actioncache.AsksUser}
	// step takes the cache's action if it offers one (else the model's), and records it as the
	// engine answered: held by the gate, or sent.
	step := func(taskID string, trail []byte, url, dom, model string, held bool) ([]byte, actioncache.Outcome, string) {
		turn := c.Open(ctx, actioncache.Open{TenantID: "ten-a", TaskID: taskID, Task: task, Trail: trail, URL: url, Page: pagemodel.Parse(dom)})
		a, served := turn.Lookup(ctx)
		if !served {
			a = act(model)
		}
		taken := write(a)
		d := actioncache.Decided{Action: a, Served: served}
		if held {
			d = actioncache.Decided{Action: ask, Served: served, Held: true}
		}
		trail = turn.Record(d)
		if a.Kind == actioncache.Completes {
			if err := turn.Finish(ctx, true); err != nil {
				t.Fatal(err)
			}
		}
		return trail, turn.Outcome(), taken
	}
	// The gate held click(1); the user approved; the model chose it again and it was sent.
	var trail []byte
	trail, _, _ = step("t1", trail, home, homeDOM, "click(1)", true)
	trail, _, _ = step("t1", trail, home, homeDOM, "click(1)", false)
	trail, _, _ = step("t1", trail, settings, setDOM, "click(3)", false)
	step("t1", trail, settings, doneDOM, "finish()", false)
	e, err := store.GetEntry(ctx, "ten-a", actioncache.EntryKey("", task))
	if err != nil || len(e.Steps) != 3 {
		t.Fatalf("entry = %+v (%v), want the 3 steps sent, not the held one", e.Steps, err)
	}
	// The repeat: the cached click is held again, and served again once approved.
	trail = nil
	var taken []string
	for _, s := range []struct {
		url, dom string
		held     bool
	}{{home, homeDOM, true}, {home, homeDOM, false}, {settings, setDOM, false}, {settings, doneDOM, false}} {
		var o actioncache.Outcome
		var a string
		trail, o, a = step("t2", trail, s.url, s.dom, "", s.held)
		if o.Status != actioncache.Hit {
			t.Errorf("repeat on %s: %+v, want a hit", s.url, o)
		}
		taken = append(taken, a)
	}
	if want := []string{"click(1)", "click(1)", "click(3)", "finish()"}; !equal(taken, want) {
		t.Errorf("repeat took %q, want %q", taken, want)
	}
}

func TestAStepTheEngineDecidesWithoutTheCacheKeepsTheTaskOnItsPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _, _ := newCache(t)
	// The run asked the user on the settings page (a failed login's question is asked so, by the
	// engine, without consulting the cache).
	asked := []visit{{home, homeDOM, "click(1)", false}, {settings, setDOM, `askUser("Which mode?")`, false}, {settings, setDOM, "click(3)", false}, {settings, doneDOM, "finish()", false}}
	play(t, c, "ten-a", "t1", asked)

	var trail []byte
	var got []string
	for i, v := range asked {
		turn := c.Open(ctx, actioncache.Open{TenantID: "ten-a", TaskID: "t2", Task: task, Trail: trail, URL: v.url, Page: pagemodel.Parse(v.dom)})
		a, served := actioncache.Act{}, false
		if i != 1 {
			a, served = turn.Lookup(ctx)
		}
		if !served {
			a = act(v.action)
		}
		trail = turn.Record(actioncache.Decided{Action: a, Served: served})
		got = append(got, turn.Outcome().Status)
	}
	if want := []string{"hit", "miss", "hit", "hit"}; !equal(got, want) {
		t.Errorf("repeat = %v, want %v: the engine's own question is the run's step", got, want)
	}
}

func TestARejectionsReasonIsMaskedOfTheTasksTypedSecrets(t *testing.T) {
	t.Parallel()
	const password = "Hunter2-x"
	ctx := context.Background()
	c, _, _ := newCache(t)
	mask := func(s string) string { return strings.ReplaceAll(s, password, "••••••") }
	turn := c.Open(ctx, actioncache.Open{TenantID: "ten-a", TaskID: "t1", Task: task, URL: home, Page: pagemodel.Parse(homeDOM), Redact: mask})
	turn.Reject(`the cached action is not valid on the page: setValue(2, "` + password + `") refused`)
	var buf bytes.Buffer
	turn.Log(ctx, slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if o := turn.Outcome(); strings.Contains(o.Reason, password) {
		t.Errorf("outcome = %+v, want the password masked (it reaches debugInfo and the debug entry)", o)
	}
	if line := buf.String(); strings.Contains(line, password) || !strings.Contains(line, "not valid on the page") {
		t.Errorf("debug line = %s, want the rejection's reason with the password masked", line)
	}
}
