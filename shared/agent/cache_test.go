package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/actioncache/cachetest"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
)

// bookPages are the pages of a bookshop task, with ids numbered from base: the extension's
// numbering of one page, which another visit may change.
func bookPages(base int) (home, typed, results, book string) {
	id := func(k int) int { return base + k }
	home = fmt.Sprintf(`<div><h1>Books</h1><input id="%d" type="text" placeholder="Search books"/><button id="%d">Search</button></div>`, id(1), id(2))
	typed = fmt.Sprintf(`<div><h1>Books</h1><input id="%d" type="text" placeholder="Search books" value="Dune"/><button id="%d">Search</button></div>`, id(1), id(2))
	results = fmt.Sprintf(`<div><h1>Results</h1><ul><li><a id="%d" href="/book/dune">Dune</a> Frank Herbert</li><li><a id="%d" href="/book/dune-messiah">Dune Messiah</a> Frank Herbert</li></ul></div>`, id(3), id(4))
	book = `<div><h1>Dune</h1><p>Price: $9.99</p><p>In stock: 12 copies</p></div>`
	return
}

const bookTask = `Search the bookshop for "Dune", open the book's page and tell me its price.`

type pageStep struct{ url, dom string }

// bookRun is the run's pages in order, each the page the previous action brought.
func bookRun(base int) []pageStep {
	home, typed, results, book := bookPages(base)
	return []pageStep{
		{"https://books.example/", home}, {"https://books.example/", typed},
		{"https://books.example/search?q=dune", results}, {"https://books.example/book/dune", book},
	}
}

func (f *fixture) withCache(t *testing.T) *cachetest.Store {
	t.Helper()
	store := cachetest.New()
	f.engine.Cache = &actioncache.Cache{Store: store}
	return store
}

// run plays a task over the pages and returns the answers, one per page.
func (f *fixture) run(t *testing.T, id accounts.Identity, pages []pageStep, noCache bool) []Response {
	t.Helper()
	var out []Response
	taskID := ""
	for i, p := range pages {
		req := Request{Identity: id, TaskID: taskID, URL: p.url, Query: bookTask, DOM: p.dom, NoCache: noCache}
		if i > 0 {
			req.Report = &tasks.Report{Status: "success"}
		}
		r := f.step(t, req)
		out = append(out, r)
		taskID = r.TaskID
		if r.Status == string(tasks.StatusCompleted) {
			break
		}
	}
	return out
}

func (f *fixture) scriptBookRun(base int) {
	f.llm.Reply(reply("I type the title.", fmt.Sprintf(`setValue(%d, "Dune")`, base+1)))
	f.llm.Reply(reply("I search.", fmt.Sprintf("click(%d)", base+2)))
	f.llm.Reply(reply("I open Dune.", fmt.Sprintf("click(%d)", base+3)))
	f.llm.Reply(reply("The page shows the price.", `finish("Dune costs $9.99.")`))
}

func actionsOf(rs []Response) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Action)
	}
	return out
}

func TestRepeatedTaskIsServedFromTheCacheWithoutTheModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withCache(t)
	f.scriptBookRun(0)
	first := f.run(t, alice, bookRun(0), false)
	if got := f.llm.Calls(); got != 4 {
		t.Fatalf("first run made %d LLM calls, want 4", got)
	}
	for i, r := range first {
		if r.Metrics.Cache != actioncache.Miss {
			t.Errorf("first run step %d: metrics.cache = %q, want miss", i+1, r.Metrics.Cache)
		}
	}
	// The second and third runs see the same pages with the ids renumbered; no reply is scripted,
	// so any model call would fail the step.
	for run, base := range []int{40, 7} {
		got := f.run(t, alice, bookRun(base), false)
		want := []string{fmt.Sprintf(`setValue(%d, "Dune")`, base+1), fmt.Sprintf("click(%d)", base+2), fmt.Sprintf("click(%d)", base+3), `finish("Dune costs $9.99.")`}
		if strings.Join(actionsOf(got), " ") != strings.Join(want, " ") {
			t.Errorf("run %d actions = %q, want %q", run+2, actionsOf(got), want)
		}
		for i, r := range got {
			if r.Metrics.Cache != actioncache.Hit || r.Metrics.LLMAttempts != 0 {
				t.Errorf("run %d step %d: cache %q with %d LLM attempts, want a hit with none", run+2, i+1, r.Metrics.Cache, r.Metrics.LLMAttempts)
			}
		}
		if last := got[len(got)-1]; last.Status != string(tasks.StatusCompleted) || last.Result != "Dune costs $9.99." {
			t.Errorf("run %d ended %q with result %q, want completed with the price read from the page", run+2, last.Status, last.Result)
		}
	}
	if got := f.llm.Calls(); got != 4 {
		t.Errorf("LLM calls after three runs = %d, want still 4", got)
	}
}

func TestCacheMissesGoToTheModel(t *testing.T) {
	t.Parallel()
	bob := accounts.Identity{UserID: "u-bob", TenantID: "ten-b", TenantName: "B", Tier: accounts.TierFree}
	otherStructure := bookRun(0)
	otherStructure[0].dom = `<div><h1>Books</h1><form><select id="9"><option>All</option></select><input id="1" type="text" placeholder="Search books"/><button id="2">Search</button></form></div>`
	twins := bookRun(0)
	twins[2].dom = `<div><h1>Results</h1><ul><li><a id="3" href="/book/dune">Dune</a> Frank Herbert</li><li><a id="4" href="/book/dune">Dune</a> Frank Herbert</li></ul></div>`
	changedPrice := bookRun(0)
	changedPrice[3].dom = strings.Replace(changedPrice[3].dom, "$9.99", "$12.50", 1)
	for _, tc := range []struct {
		name     string
		id       accounts.Identity
		pages    []pageStep
		noCache  bool
		misses   []int // steps (from 1) that must go to the model
		wantStat string
	}{
		{name: "another tenant", id: bob, pages: bookRun(0), misses: []int{1, 2, 3, 4}, wantStat: actioncache.Miss},
		// The model types into the same field as the run did: the task is back on the run's path,
		// and the next page is the run's.
		{name: "a page of another structure", id: alice, pages: otherStructure, misses: []int{1}, wantStat: actioncache.Miss},
		// Which of the twins the model clicked cannot be told: the task has left the run's path,
		// and no later step is served over it.
		{name: "identical links to choose between", id: alice, pages: twins, misses: []int{3, 4}, wantStat: actioncache.Miss},
		{name: "a fact of the answer changed", id: alice, pages: changedPrice, misses: []int{4}, wantStat: actioncache.Miss},
		{name: "the request opts out", id: alice, pages: bookRun(0), noCache: true, misses: []int{1, 2, 3, 4}, wantStat: actioncache.Off},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.withCache(t)
			f.scriptBookRun(0)
			f.run(t, alice, bookRun(0), false)
			before := f.llm.Calls()
			for _, n := range tc.misses {
				f.llm.Reply([]string{
					reply("I type the title.", `setValue(1, "Dune")`), reply("I search.", "click(2)"),
					reply("I open Dune.", "click(3)"), reply("The page shows the price.", `finish("Dune costs $12.50.")`),
				}[n-1])
			}
			got := f.run(t, tc.id, tc.pages, tc.noCache)
			if calls := f.llm.Calls() - before; calls != len(tc.misses) {
				t.Errorf("model calls = %d, want %d (steps %v)", calls, len(tc.misses), tc.misses)
			}
			for _, n := range tc.misses {
				if n <= len(got) && got[n-1].Metrics.Cache != tc.wantStat {
					t.Errorf("step %d: metrics.cache = %q, want %q", n, got[n-1].Metrics.Cache, tc.wantStat)
				}
			}
		})
	}
}

func TestFailedReplayDropsTheEntryAndHandsTheStepToTheModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	store := f.withCache(t)
	f.scriptBookRun(0)
	f.run(t, alice, bookRun(0), false)

	// The search now brings an error page: the replayed click did not do what it did before.
	pages := bookRun(0)[:3]
	pages[2] = pageStep{"https://books.example/search?q=dune", `<div><h1>Search is down</h1><p>Try again later.</p><button id="1">Retry</button></div>`}
	f.llm.Reply(reply("The search failed; I retry.", "click(1)"))
	got := f.run(t, alice, pages, false)
	if got[0].Metrics.Cache != actioncache.Hit || got[1].Metrics.Cache != actioncache.Hit {
		t.Fatalf("first steps = %q, %q; want hits", got[0].Metrics.Cache, got[1].Metrics.Cache)
	}
	if got[2].Metrics.Cache != actioncache.Miss || got[2].Action != "click(1)" {
		t.Errorf("step after the failed replay = %q %q, want a miss answered by the model", got[2].Metrics.Cache, got[2].Action)
	}
	if _, err := store.GetEntry(context.Background(), alice.TenantID, actioncache.EntryKey(cacheEngine, bookTask)); err != actioncache.ErrNotFound {
		t.Errorf("entry after the failed replay: err = %v, want ErrNotFound (dropped)", err)
	}
}

func TestSecretValuesAreNeverCached(t *testing.T) {
	t.Parallel()
	const (
		task     = "Sign in as ada with the password hunter2-Secret"
		password = "hunter2-Secret"
	)
	login := `<form><input id="1" name="user"/><input id="2" type="password" name="pw"/><button id="3">Sign in</button></form>`
	typed := `<form><input id="1" name="user" value="ada"/><input id="2" type="password" name="pw" value="hunter2-Secret"/><button id="3">Sign in</button></form>`
	doms := []string{login, login, typed, `<div><h1>Welcome ada</h1></div>`}
	play := func(f *fixture, task string) ([]Response, string) {
		var out []Response
		taskID := ""
		for i, dom := range doms {
			req := Request{TaskID: taskID, URL: "https://app.example/login", Query: task, DOM: dom}
			if i > 0 {
				req.Report = &tasks.Report{Status: "success"}
			}
			r := f.step(t, req)
			out, taskID = append(out, r), r.TaskID
		}
		return out, taskID
	}
	f := newFixture(t)
	store := f.withCache(t)
	f.llm.Reply(reply("User.", `setValue(1, "ada")`))
	f.llm.Reply(reply("Password.", fmt.Sprintf(`setValue(2, "%s")`, password)))
	f.llm.Reply(reply("Sign in.", "click(3)"))
	f.llm.Reply(reply("Signed in.", "finish()"))
	_, taskID := play(f, task)
	e, err := store.GetEntry(context.Background(), alice.TenantID, actioncache.EntryKey(cacheEngine, task))
	if err != nil {
		t.Fatalf("entry: %v", err)
	}
	if len(e.Steps) != 4 || e.Steps[1].FromTask == nil || e.Steps[1].Skip != "" {
		t.Errorf("entry steps = %+v, want 4 with the password kept as where the task's text gives it", e.Steps)
	}
	stored, err := f.tasks.GetTask(context.Background(), alice.TenantID, taskID)
	if err != nil {
		t.Fatal(err)
	}
	for what, b := range map[string]string{"entry": fmt.Sprintf("%+v %s", e.Steps, e.Task), "task's trail": string(stored.Memory.Cache)} {
		if strings.Contains(strings.ToLower(b), strings.ToLower(password)) {
			t.Errorf("the %s holds the secret value: %s", what, b)
		}
	}
	// The same task, its password in another case (one key): the value is the current task's.
	other := strings.Replace(task, password, strings.ToUpper(password), 1)
	got, _ := play(f, other)
	if got[1].Action != fmt.Sprintf(`setValue(2, "%s")`, strings.ToUpper(password)) || got[1].Metrics.Cache != actioncache.Hit || f.llm.Calls() != 4 {
		t.Errorf("repeat's password step = %q (cache %q, %d LLM calls), want the value read from the task's text, from the cache", got[1].Action, got[1].Metrics.Cache, f.llm.Calls())
	}
}

func TestThePaymentGateHoldsAReplayInCarefulMode(t *testing.T) {
	t.Parallel()
	const task = "Pay the open invoice"
	invoice := `<div><h1>Invoice 2024-117</h1><p>Amount due: $120.00</p><button id="5">Pay now</button></div>`
	paid := `<div><h1>Invoice 2024-117</h1><p>Paid. Thank you.</p></div>`
	// play steps through the pages; a question is answered on the same page, approving the held
	// action by its confirmation id, as the extension does.
	play := func(f *fixture, mode string) []Response {
		var out []Response
		taskID, confirm := "", ""
		for i := 0; i < 2; {
			req := Request{TaskID: taskID, URL: "https://billing.example/invoice", Query: task, DOM: []string{invoice, paid}[i], Mode: mode, ConfirmationID: confirm}
			if taskID != "" {
				req.Report = &tasks.Report{Status: "success"}
			}
			if confirm != "" {
				req.Query = "Yes, go ahead."
			}
			r := f.step(t, req)
			out, taskID, confirm = append(out, r), r.TaskID, r.ConfirmationID
			switch {
			case r.Status == StatusNeedsUserInput && confirm != "":
			case r.Status == StatusExecuting:
				i++
			default:
				return out
			}
		}
		return out
	}
	for _, tc := range []struct {
		name           string
		learn          string
		script         []string
		wantLearnCalls int
	}{
		{"learned in autonomous mode", ModeAutonomous, []string{reply("I pay.", "click(5)"), reply("Paid.", "finish()")}, 2},
		// The gate held the model's click, the user approved, and the model chose it again.
		{"learned in careful mode", ModeCareful, []string{reply("I pay.", "click(5)"), reply("I pay.", "click(5)"), reply("Paid.", "finish()")}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.withCache(t)
			for _, r := range tc.script {
				f.llm.Reply(r)
			}
			if got := play(f, tc.learn); got[len(got)-1].Status != string(tasks.StatusCompleted) || f.llm.Calls() != tc.wantLearnCalls {
				t.Fatalf("first run = %q after %d LLM calls, want completed after %d", actionsOf(got), f.llm.Calls(), tc.wantLearnCalls)
			}
			got := play(f, ModeCareful)
			if len(got) != 3 || got[0].Status != StatusNeedsUserInput || got[0].ConfirmationID == "" || got[1].Action != "click(5)" || got[2].Status != string(tasks.StatusCompleted) {
				t.Fatalf("careful repeat = %q, want the gate's question, the approved click(5), then completed", actionsOf(got))
			}
			for i, r := range got {
				if r.Metrics.Cache != actioncache.Hit {
					t.Errorf("careful repeat step %d: cache %q, want a hit", i+1, r.Metrics.Cache)
				}
			}
			if f.llm.Calls() != tc.wantLearnCalls {
				t.Errorf("LLM calls = %d, want still %d: the question came from the gate, the approved click and the end from the cache", f.llm.Calls(), tc.wantLearnCalls)
			}
		})
	}
}

// playBatch plays a task for a client that runs batches over the doms, all on one site, and
// returns the answers.
func (f *fixture) playBatch(t *testing.T, task string, held []trust.NamedSecret, pages ...pageStep) []Response {
	t.Helper()
	var out []Response
	taskID := ""
	for i, p := range pages {
		req := Request{TaskID: taskID, URL: p.url, Query: task, DOM: p.dom, Batch: true, SecretNames: held}
		if i > 0 {
			req.Report = &tasks.Report{Status: "success"}
		}
		r := f.step(t, req)
		out, taskID = append(out, r), r.TaskID
		if r.Status == string(tasks.StatusCompleted) || r.Status == StatusNeedsUserInput {
			break
		}
	}
	return out
}

func batchesOf(rs []Response) []string {
	var out []string
	for _, r := range rs {
		out = append(out, strings.Join(r.Actions, "; "))
	}
	return out
}

func TestABatchIsReplayedInOrder(t *testing.T) {
	t.Parallel()
	const task = "Book a visit for Ada at 10:00"
	form := func(base int) string {
		return fmt.Sprintf(`<form><h1>Book a visit</h1><input id="%d" name="name"/><input id="%d" name="time"/><button id="%d">Book</button></form>`, base+1, base+2, base+3)
	}
	done := `<div><h1>Booked</h1><p>Booked for 10:00.</p></div>`
	pages := func(base int) []pageStep {
		return []pageStep{{"https://clinic.example/book", form(base)}, {"https://clinic.example/booked", done}}
	}
	f := newFixture(t)
	f.withCache(t)
	f.llm.Reply("<Thought>I fill the form and book.</Thought>\n<Actions>\nsetValue(1, \"Ada\")\nsetValue(2, \"10:00\")\nclick(3)\n</Actions>")
	f.llm.Reply(reply("Booked.", `finish("Booked.")`))
	f.playBatch(t, task, nil, pages(0)...)
	// The form's page has one key before and after it is filled: the answer must still come
	// after the batch, never in its place.
	got := f.playBatch(t, task, nil, pages(30)...)
	want := []string{`setValue(31, "Ada"); setValue(32, "10:00"); click(33)`, `finish("Booked.")`}
	if b := batchesOf(got); strings.Join(b, "|") != strings.Join(want, "|") || f.llm.Calls() != 2 {
		t.Errorf("repeat = %q after %d LLM calls, want %q after still 2", b, f.llm.Calls(), want)
	}
	for i, r := range got {
		if r.Metrics.Cache != actioncache.Hit {
			t.Errorf("repeat step %d: cache %q, want a hit", i+1, r.Metrics.Cache)
		}
	}
}

func TestANamedSecretIsReplayedByName(t *testing.T) {
	t.Parallel()
	const task = "Sign in to the CRM as ada"
	login := `<form><input id="1" name="user"/><input id="2" type="password" name="pw"/><button id="3">Sign in</button></form>`
	pages := []pageStep{{"https://crm.example.com/login", login}, {"https://crm.example.com/home", `<div><h1>Welcome ada</h1></div>`}}
	held := []trust.NamedSecret{{Name: "crm_password"}}
	f := newFixture(t)
	f.withCache(t)
	f.llm.Reply("<Thought>I sign in.</Thought>\n<Actions>\nsetValue(1, \"ada\")\nsetValue(2, secret(\"crm_password\"))\nclick(3)\n</Actions>")
	f.llm.Reply(reply("Signed in.", "finish()"))
	f.playBatch(t, task, held, pages...)
	got := f.playBatch(t, task, held, pages...)
	want := `setValue(1, "ada"); setValue(2, secret("crm_password")); click(3)`
	if b := batchesOf(got); b[0] != want || got[0].Metrics.Cache != actioncache.Hit {
		t.Errorf("repeat's first step = %q (cache %q), want %q from the cache", b[0], got[0].Metrics.Cache, want)
	}
	// A client that no longer holds the secret gets the model, which may ask for it.
	f.llm.Reply(reply("I need the password.", `askUser("What is the CRM password?")`))
	if got := f.playBatch(t, task, []trust.NamedSecret{{Name: "other"}}, pages...); got[0].Metrics.Cache != actioncache.Miss {
		t.Errorf("without the secret: cache %q, want a miss", got[0].Metrics.Cache)
	}
}

func TestAValueTheUserGaveIsTypedByTheModelOnARepeat(t *testing.T) {
	t.Parallel()
	const task = "Subscribe me to the newsletter"
	home := `<div><h1>News</h1><a id="1" href="/newsletter">Newsletter</a></div>`
	form := `<form><h1>Newsletter</h1><input id="2" name="name"/><button id="3">Subscribe</button></form>`
	done := `<div><h1>Subscribed</h1></div>`
	pages := []pageStep{{"https://news.example/", home}, {"https://news.example/", home}, {"https://news.example/newsletter", form},
		{"https://news.example/newsletter", form}, {"https://news.example/welcome", done}}
	// play answers the model's question with the name, and goes on over the pages.
	play := func(f *fixture, name string) []Response {
		var out []Response
		taskID := ""
		for i, p := range pages {
			req := Request{TaskID: taskID, URL: p.url, Query: task, DOM: p.dom}
			if i > 0 {
				req.Report = &tasks.Report{Status: "success"}
			}
			if i == 1 {
				req.Query = name
			}
			r := f.step(t, req)
			out, taskID = append(out, r), r.TaskID
		}
		return out
	}
	f := newFixture(t)
	f.withCache(t)
	f.llm.Reply(reply("I need a name.", `askUser("Which name should I subscribe?")`))
	f.llm.Reply(reply("I open the newsletter.", "click(1)"))
	f.llm.Reply(reply("I type the name.", `setValue(2, "Grace Hopper")`))
	f.llm.Reply(reply("I subscribe.", "click(3)"))
	f.llm.Reply(reply("Subscribed.", "finish()"))
	play(f, "Grace Hopper")
	// The repeat: the question and the step after the answer are the model's, and so is typing
	// the name, which the user may give otherwise this time.
	f.llm.Reply(reply("I need a name.", `askUser("Which name should I subscribe?")`))
	f.llm.Reply(reply("I open the newsletter.", "click(1)"))
	f.llm.Reply(reply("I type the name.", `setValue(2, "Alan Turing")`))
	got := play(f, "Alan Turing")
	var caches []string
	for _, r := range got {
		caches = append(caches, r.Metrics.Cache)
	}
	if want := []string{"miss", "miss", "miss", "hit", "hit"}; strings.Join(caches, " ") != strings.Join(want, " ") || got[2].Action != `setValue(2, "Alan Turing")` {
		t.Errorf("repeat = %v typing %q, want %v with the name the user gave this time", caches, got[2].Action, want)
	}
}
