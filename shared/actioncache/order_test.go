package actioncache_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/actioncache"
)

const (
	booking  = "https://clinic.example/book"
	booked   = "https://clinic.example/booked"
	formDOM  = `<h1>Book a visit</h1><label>Name <input id="1" name="name"/></label><label>Time <input id="2" name="time"/></label><button id="3">Book</button>`
	doneBook = `<h1>Booked</h1><p>See you soon.</p>`
)

func TestBatchStepsReplayInOrder(t *testing.T) {
	t.Parallel()
	const bookTask = "Book a visit for Ada at 10:00"
	learn := []visit{
		{booking, formDOM, `setValue(1, "Ada"); setValue(2, "10:00"); click(3)`, false},
		{booked, doneBook, `finish("Booked.")`, false},
	}
	renumbered := strings.NewReplacer(`id="1"`, `id="21"`, `id="2"`, `id="22"`, `id="3"`, `id="23"`).Replace(formDOM)
	for _, tc := range []struct {
		name   string
		repeat []visit
		want   []string
		acts   []string
	}{
		{"the same pages: the batch, then the answer", learn,
			[]string{"hit", "hit"}, []string{`setValue(1, "Ada"); setValue(2, "10:00"); click(3)`, `finish("Booked.")`}},
		{"ids renumbered: the batch acts on the same fields", []visit{{booking, renumbered, "", false}, {booked, doneBook, "", false}},
			[]string{"hit", "hit"}, []string{`setValue(21, "Ada"); setValue(22, "10:00"); click(23)`, `finish("Booked.")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := newCache(t)
			playTask(t, c, "ten-a", "t1", bookTask, learn)
			got, acts, _ := playTask(t, c, "ten-a", "t2", bookTask, tc.repeat)
			if !equal(statuses(got), tc.want) || !equal(acts, tc.acts) {
				t.Errorf("repeat = %v doing %q, want %v doing %q", statuses(got), acts, tc.want, tc.acts)
			}
		})
	}
}

func TestABatchWithAnAmbiguousTargetIsAMiss(t *testing.T) {
	t.Parallel()
	const task = "Search the reports for march and open the first one"
	// Links of one label differ only by address, which the page key leaves out and the target
	// keeps: the repeat's page is the same page, its targets are not.
	const learned = `<h1>Reports</h1><input id="1" name="q"/><a id="2" href="/r/a">Open</a><a id="3" href="/r/b">Open</a>`
	learn := []visit{
		{"https://r.example/", learned, `setValue(1, "march"); click(2)`, false},
		{"https://r.example/r/a", `<h1>March</h1>`, "finish()", false},
	}
	for _, tc := range []struct{ name, dom string }{
		{"two links fit the target", `<h1>Reports</h1><input id="1" name="q"/><a id="2" href="/r/a">Open</a><a id="3" href="/r/a">Open</a>`},
		{"no link fits the target", `<h1>Reports</h1><input id="1" name="q"/><a id="2" href="/r/c">Open</a><a id="3" href="/r/b">Open</a>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := newCache(t)
			playTask(t, c, "ten-a", "t1", task, learn)
			got, _, _ := playTask(t, c, "ten-a", "t2", task, []visit{{"https://r.example/", tc.dom, `setValue(1, "march"); click(2)`, false}})
			if got[0].Status != actioncache.Miss || !strings.Contains(got[0].Reason, "not exactly one") {
				t.Errorf("outcome = %+v, want a miss because a target does not match exactly one element", got[0])
			}
		})
	}
}

func TestNoStepIsServedOverOneNotTaken(t *testing.T) {
	t.Parallel()
	const task = "Sign in and open the dashboard"
	const (
		signIn = "https://app.example/login"
		dash   = "https://app.example/dash"
		login  = `<h1>Sign in</h1><input id="1" type="password" name="pw"/><button id="2">Sign in</button><button id="3">Show password</button>`
		board  = `<h1>Dashboard</h1>`
	)
	// Typing the password is a hole: the model types it on every run. The submit after it is on
	// the same page, which a typed value does not change.
	learn := []visit{{signIn, login, `setValue(1, "hunter2")`, false}, {signIn, login, "click(2)", false}, {dash, board, "finish()", false}}
	for _, tc := range []struct {
		name   string
		repeat []visit
		want   []string
	}{
		{"the model takes the hole as the run did", learn, []string{"miss", "hit", "hit"}},
		{"the model does something else first: nothing is served until it takes the hole",
			[]visit{{signIn, login, "click(3)", false}, {signIn, login, `setValue(1, "hunter2")`, false}, {signIn, login, "click(2)", false}, {dash, board, "finish()", false}},
			[]string{"miss", "miss", "hit", "hit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := newCache(t)
			playTask(t, c, "ten-a", "t1", task, learn)
			got, acts, _ := playTask(t, c, "ten-a", "t2", task, tc.repeat)
			if !equal(statuses(got), tc.want) {
				t.Errorf("repeat = %v doing %q, want %v", statuses(got), acts, tc.want)
			}
			if acts[len(acts)-2] != "click(2)" {
				t.Errorf("the submit = %q, want click(2) after the password", acts[len(acts)-2])
			}
		})
	}
}

func TestFactReadingStepsAreLeftToTheModel(t *testing.T) {
	t.Parallel()
	const (
		wiki    = "https://wiki.example/grace-hopper"
		dir     = "https://dir.example/people/new"
		saved   = "https://dir.example/people"
		wikiDOM = `<h1>Grace Hopper</h1><p>Job title: Rear Admiral</p><a id="1" href="https://dir.example/people/new">Directory</a>`
		dirDOM  = `<h1>New person</h1><label>Name <input id="1" name="name"/></label><label>Title <input id="2" name="title"/></label><button id="3">Save</button>`
		homeDOM = `<a id="1" href="https://wiki.example/grace-hopper">Grace Hopper</a>`
	)
	for _, tc := range []struct {
		name, task string
		visits     []visit
		want       []string
	}{
		{"the answer states what an earlier page showed", "Look up Grace Hopper's job title on the wiki, then open the directory and tell it to me",
			[]visit{{home, homeDOM, "click(1)", false}, {wiki, wikiDOM, "click(1)", false}, {dir, dirDOM, `finish("Her job title is Rear Admiral.")`, false}},
			[]string{"hit", "miss", "miss"}},
		{"a typed value comes from an earlier page", "Add Grace Hopper to the directory with her job title from the wiki",
			[]visit{{home, homeDOM, "click(1)", false}, {wiki, wikiDOM, "click(1)", false},
				{dir, dirDOM, `setValue(1, "Grace Hopper"); setValue(2, "Rear Admiral"); click(3)`, false}, {saved, `<p>Saved.</p>`, "finish()", false}},
			[]string{"hit", "miss", "miss", "hit"}},
		{"the answer is read on its own page", "Open the wiki page of Grace Hopper and tell me her job title",
			[]visit{{home, homeDOM, "click(1)", false}, {wiki, wikiDOM, `finish("Her job title is Rear Admiral.")`, false}},
			[]string{"hit", "hit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := newCache(t)
			playTask(t, c, "ten-a", "t1", tc.task, tc.visits)
			got, _, _ := playTask(t, c, "ten-a", "t2", tc.task, tc.visits)
			if !equal(statuses(got), tc.want) {
				t.Errorf("repeat = %v, want %v (%+v)", statuses(got), tc.want, got)
			}
		})
	}
}

func TestSecretsAreCachedByNameOnly(t *testing.T) {
	t.Parallel()
	const (
		task     = "Sign in to the CRM as ada"
		signIn   = "https://crm.example/login"
		loginDOM = `<h1>CRM</h1><input id="1" name="user"/><input id="2" type="password" name="pw"/><button id="3">Sign in</button>`
		password = "s3cret-Value!"
	)
	for _, tc := range []struct {
		name, batch string
		want        string
	}{
		{"a named secret replays by its name", `setValue(1, "ada"); setValue(2, secret("crm_password")); click(3)`, "hit"},
		{"a typed secret value is never kept", `setValue(1, "ada"); setValue(2, "` + password + `"); click(3)`, "miss"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, store, _ := newCache(t)
			run := []visit{{signIn, loginDOM, tc.batch, false}, {home, homeDOM, "finish()", false}}
			_, _, trail := playTask(t, c, "ten-a", "t1", task, run)
			got, acts, _ := playTask(t, c, "ten-a", "t2", task, run)
			if got[0].Status != tc.want || tc.want == "hit" && acts[0] != tc.batch {
				t.Errorf("repeat's first step = %+v doing %q, want %s", got[0], acts[0], tc.want)
			}
			e, err := store.GetEntry(context.Background(), "ten-a", actioncache.EntryKey("", task))
			if err != nil {
				t.Fatal(err)
			}
			stored, _ := json.Marshal(e)
			if strings.Contains(string(stored), password) || strings.Contains(string(trail), password) {
				t.Errorf("the entry or the trail holds the typed secret value: %s", stored)
			}
		})
	}
}

func TestAFailedBatchAndTheStepAfterItAreLeftToTheModel(t *testing.T) {
	t.Parallel()
	const bookTask = "Book a visit for Ada at 10:00"
	// The batch typed the name, failed on the time, and the form's page keeps its key: serving
	// the answer there would skip the batch.
	failed := []visit{
		{booking, formDOM, `setValue(1, "Ada"); setValue(2, "10:00"); click(3)`, false},
		{booking, formDOM, `finish("Booked.")`, true},
	}
	c, store, _ := newCache(t)
	playTask(t, c, "ten-a", "t1", bookTask, failed)
	e, err := store.GetEntry(context.Background(), "ten-a", actioncache.EntryKey("", bookTask))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range e.Steps {
		if s.Skip == "" {
			t.Errorf("entry step %d = %+v, want a hole: the failed batch and the answer after it are the model's", i, s)
		}
	}
	if got, _, _ := playTask(t, c, "ten-a", "t2", bookTask, failed); !equal(statuses(got), []string{"miss", "miss"}) {
		t.Errorf("repeat = %v, want [miss miss]", statuses(got))
	}
}
