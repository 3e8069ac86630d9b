package runs_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/actioncache/cachetest"
	"github.com/screenagent/backend/shared/llm/llmtest"
	"github.com/screenagent/backend/shared/llm/provider"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runstest"
	"github.com/screenagent/backend/shared/trust"
)

func newCachedFixture(t *testing.T) *fixture {
	t.Helper()
	fake := llmtest.New(t)
	client, err := provider.New(provider.Options{BaseURL: fake.URL(), Model: "test-model", APIKey: "test-key", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	store := runstest.New(runs.DefaultRetention)
	cache := &actioncache.Cache{Store: cachetest.New()}
	return &fixture{svc: &runs.Service{Store: store, LLM: client, Model: "test-model", Cache: cache}, store: store, llm: fake}
}

// shopPages are a shop's home and checkout pages with the snapshot's ids prefixed: the client's
// numbering, which another visit may change.
func shopPages(prefix string) (home, product *runs.Snapshot) {
	home = &runs.Snapshot{URL: "https://shop.example/", Title: "Shop", VisibleText: "Welcome", Elements: []runs.Element{
		{ID: prefix + "1", Tag: "a", Text: "Blue teapot", Href: "https://shop.example/teapot"},
		{ID: prefix + "2", Tag: "input", Placeholder: "Search"},
	}}
	product = &runs.Snapshot{URL: "https://shop.example/teapot", Title: "Blue teapot", VisibleText: "Blue teapot\nPrice\n$24.50", Elements: []runs.Element{
		{ID: prefix + "3", Tag: "button", Text: "Buy now"},
		{ID: prefix + "4", Tag: "a", Text: "Home", Href: "https://shop.example/"},
	}}
	return home, product
}

const teapotTask = "Open the Blue teapot and buy it"

// playRun runs the task over the pages (observe first) and returns the answers; a call the gate
// holds (careful mode) is approved by its confirmation id, and the approved call runs on to the
// next page.
func (f *fixture) playRun(t *testing.T, mode runs.Mode, pages ...*runs.Snapshot) []runs.StepResponse {
	t.Helper()
	ctx := context.Background()
	start, err := f.svc.Start(ctx, runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: teapotTask, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	out := []runs.StepResponse{f.step(t, start.RunID, nil, nil)}
	for _, p := range pages {
		r := f.step(t, start.RunID, p, success)
		out = append(out, r)
		if r.Action == runs.ActionAskUser && r.ConfirmationID != "" {
			r, err = f.svc.Answer(ctx, runs.AnswerRequest{TenantID: "ten-a", UserID: "u-1", RunID: start.RunID, Approved: true, ConfirmationID: r.ConfirmationID})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		if r.Action != runs.ActionExecuteTool {
			break
		}
	}
	return out
}

func TestRepeatedRunIsServedFromTheCache(t *testing.T) {
	t.Parallel()
	f := newCachedFixture(t)
	home, product := shopPages("a-")
	f.llm.Reply(toolCall("click", `{"id":"a-1"}`))
	f.llm.Reply(toolCall("click", `{"id":"a-3"}`))
	f.llm.Reply(`{"type":"final","answer":"I bought the Blue teapot for $24.50.","thought":"Bought."}`)
	first := f.playRun(t, runs.ModeAutonomous, home, product, product)
	if got := first[len(first)-1]; got.Action != runs.ActionFinish || f.llm.Calls() != 3 {
		t.Fatalf("first run ended with %+v after %d LLM calls, want finish after 3", got, f.llm.Calls())
	}

	home2, product2 := shopPages("b-")
	got := f.playRun(t, runs.ModeAutonomous, home2, product2, product2)
	if f.llm.Calls() != 3 {
		t.Errorf("LLM calls after the repeat = %d, want still 3", f.llm.Calls())
	}
	wantIDs := []string{"b-1", "b-3"}
	for i, id := range wantIDs {
		r := got[i+1]
		if r.Tool == nil || r.Tool.Parameters["elementId"] != id && r.Tool.Parameters["id"] != id || r.Metrics.Cache != actioncache.Hit {
			t.Errorf("repeat step %d = %+v (cache %q), want a cached click on %s", i+2, r.Tool, r.Metrics.Cache, id)
		}
	}
	if last := got[len(got)-1]; last.Action != runs.ActionFinish || last.Result != "I bought the Blue teapot for $24.50." || last.Metrics.Cache != actioncache.Hit {
		t.Errorf("repeat ended with %+v, want the cached finish with the price read from the page", last)
	}
}

func TestTheGateHoldsAReplayInCarefulMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		learn runs.Mode
	}{
		{"learned in autonomous mode", runs.ModeAutonomous},
		// The gate held the model's "Buy now" and the user approved it: the approved call is the step.
		{"learned in careful mode", runs.ModeCareful},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCachedFixture(t)
			home, product := shopPages("a-")
			f.llm.Reply(toolCall("click", `{"id":"a-1"}`))
			f.llm.Reply(toolCall("click", `{"id":"a-3"}`))
			f.llm.Reply(`{"type":"final","answer":"Bought.","thought":"Bought."}`)
			f.playRun(t, tc.learn, home, product, product)
			if f.llm.Calls() != 3 {
				t.Fatalf("first run made %d LLM calls, want 3", f.llm.Calls())
			}

			home2, product2 := shopPages("b-")
			got := f.playRun(t, runs.ModeCareful, home2, product2, product2)
			var kinds []string
			for _, r := range got[1:] {
				kinds = append(kinds, r.Action+"/"+r.Metrics.Cache)
			}
			// The held call's question comes from the gate; the approved call runs from Answer,
			// which decides nothing and says the call is the cache's.
			want := []string{"execute_tool/hit", "ask_user/hit", "execute_tool/hit", "finish/hit"}
			if !equal(kinds, want) || f.llm.Calls() != 3 {
				t.Errorf("careful repeat = %q after %d LLM calls, want %q after still 3", kinds, f.llm.Calls(), want)
			}
		})
	}
}

func TestTheStepAfterTheUsersAnswerIsTheModels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newCachedFixture(t)
	home, product := shopPages("a-")
	// play asks the user on the home page, then goes on.
	play := func(answer string) []runs.StepResponse {
		start, err := f.svc.Start(ctx, runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: teapotTask, Mode: runs.ModeAutonomous})
		if err != nil {
			t.Fatal(err)
		}
		out := []runs.StepResponse{f.step(t, start.RunID, nil, nil), f.step(t, start.RunID, home, success)}
		if _, err := f.svc.Answer(ctx, runs.AnswerRequest{TenantID: "ten-a", UserID: "u-1", RunID: start.RunID, Approved: true, Answer: answer}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*runs.Snapshot{home, product, product} {
			r := f.step(t, start.RunID, p, success)
			out = append(out, r)
			if r.Action != runs.ActionExecuteTool {
				break
			}
		}
		return out
	}
	f.llm.Reply(`{"type":"ask_user","question":"Which colour?","thought":"Two teapots."}`)
	f.llm.Reply(toolCall("click", `{"id":"a-1"}`))
	f.llm.Reply(toolCall("click", `{"id":"a-3"}`))
	f.llm.Reply(`{"type":"final","answer":"Bought.","thought":"Bought."}`)
	play("Blue")
	f.llm.Reply(`{"type":"ask_user","question":"Which colour?","thought":"Two teapots."}`)
	f.llm.Reply(toolCall("click", `{"id":"a-1"}`))
	got := play("Green, if they have it")
	var caches []string
	for _, r := range got[1:] {
		caches = append(caches, r.Metrics.Cache)
	}
	if want := []string{"miss", "miss", "hit", "hit"}; !equal(caches, want) || f.llm.Calls() != 6 {
		t.Errorf("repeat = %q after %d LLM calls, want %q after 6: the model reads the user's answer", caches, f.llm.Calls(), want)
	}
}

func TestANamedSecretIsReplayedByNameInARun(t *testing.T) {
	const task = "Sign in to the CRM"
	login := &runs.Snapshot{URL: "https://crm.example.com/login", Title: "CRM", VisibleText: "Sign in", Elements: []runs.Element{
		{ID: "a-1", Tag: "input", Type: "password", Name: "pw"}, {ID: "a-2", Tag: "button", Text: "Sign in"},
	}}
	home := &runs.Snapshot{URL: "https://crm.example.com/home", Title: "CRM", VisibleText: "Welcome ada"}
	f := newCachedFixture(t)
	play := func(held []trust.NamedSecret) []runs.StepResponse {
		start, err := f.svc.Start(context.Background(), runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: task, Mode: runs.ModeAutonomous, SecretNames: held})
		if err != nil {
			t.Fatal(err)
		}
		out := []runs.StepResponse{f.step(t, start.RunID, nil, nil), f.step(t, start.RunID, login, success)}
		if out[1].Action == runs.ActionExecuteTool {
			out = append(out, f.step(t, start.RunID, login, success))
		}
		if out[len(out)-1].Action == runs.ActionExecuteTool {
			out = append(out, f.step(t, start.RunID, home, success))
		}
		return out
	}
	held := []trust.NamedSecret{{Name: "crm_password"}}
	f.llm.Reply(toolCall("type", `{"id":"a-1","secret":"crm_password"}`))
	f.llm.Reply(toolCall("click", `{"id":"a-2"}`))
	f.llm.Reply(`{"type":"final","answer":"Signed in.","thought":"Done."}`)
	play(held)
	got := play(held)
	if r := got[1]; r.Tool == nil || r.Tool.Parameters["secret"] != "crm_password" || r.Metrics.Cache != actioncache.Hit {
		t.Errorf("repeat's typing = %+v (cache %q), want the named secret from the cache", r.Tool, r.Metrics.Cache)
	}
	if f.llm.Calls() != 3 {
		t.Errorf("LLM calls = %d, want still 3", f.llm.Calls())
	}
	// A client that no longer holds the name gets the model.
	f.llm.Reply(`{"type":"ask_user","question":"What is the CRM password?","thought":"I need it."}`)
	if got := play([]trust.NamedSecret{{Name: "other"}}); got[1].Metrics.Cache != actioncache.Miss {
		t.Errorf("without the secret: cache %q, want a miss", got[1].Metrics.Cache)
	}
}

func equal(a, b []string) bool { return slices.Equal(a, b) }

func TestAPasswordTheTaskGivesIsReplayedFromTheTasksText(t *testing.T) {
	t.Parallel()
	const (
		password = "Hunter2-x"
		task     = "Sign in to the CRM with the password " + password
	)
	login := &runs.Snapshot{URL: "https://crm.example.com/login", Title: "CRM", VisibleText: "Sign in", Elements: []runs.Element{
		{ID: "a-1", Tag: "input", Type: "password", Name: "pw"}, {ID: "a-2", Tag: "button", Text: "Sign in"},
	}}
	home := &runs.Snapshot{URL: "https://crm.example.com/home", Title: "CRM", VisibleText: "Welcome ada"}
	f := newCachedFixture(t)
	store := cachetest.New()
	f.svc.Cache = &actioncache.Cache{Store: store}
	play := func() []runs.StepResponse {
		start, err := f.svc.Start(context.Background(), runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: task, Mode: runs.ModeAutonomous})
		if err != nil {
			t.Fatal(err)
		}
		out := []runs.StepResponse{f.step(t, start.RunID, nil, nil)}
		for _, p := range []*runs.Snapshot{login, login, home} {
			out = append(out, f.step(t, start.RunID, p, success))
		}
		return out
	}
	f.llm.Reply(toolCall("type", `{"id":"a-1","text":"`+password+`"}`))
	f.llm.Reply(toolCall("click", `{"id":"a-2"}`))
	f.llm.Reply(`{"type":"final","answer":"Signed in.","thought":"Done."}`)
	play()
	e, err := store.GetEntry(context.Background(), "ten-a", actioncache.EntryKey("run", task))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(e); strings.Contains(strings.ToLower(string(b)), strings.ToLower(password)) {
		t.Errorf("the entry holds the password: %s", b)
	}
	got := play()
	if r := got[1]; r.Tool == nil || r.Tool.Parameters["text"] != password || r.Metrics.Cache != actioncache.Hit || f.llm.Calls() != 3 {
		t.Errorf("repeat's typing = %+v (cache %q, %d LLM calls), want the password read from the task's text, from the cache", r.Tool, r.Metrics.Cache, f.llm.Calls())
	}
}

func TestAValueTheUserAnsweredIsTypedByTheModelOnARepeat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newCachedFixture(t)
	home, product := shopPages("a-")
	// play asks the user for a colour, opens the product, goes back home and searches for it.
	play := func(colour string) []runs.StepResponse {
		start, err := f.svc.Start(ctx, runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: teapotTask, Mode: runs.ModeAutonomous})
		if err != nil {
			t.Fatal(err)
		}
		out := []runs.StepResponse{f.step(t, start.RunID, nil, nil), f.step(t, start.RunID, home, success)}
		if _, err := f.svc.Answer(ctx, runs.AnswerRequest{TenantID: "ten-a", UserID: "u-1", RunID: start.RunID, Approved: true, Answer: colour}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*runs.Snapshot{home, product, home, home} {
			out = append(out, f.step(t, start.RunID, p, success))
		}
		return out
	}
	f.llm.Reply(`{"type":"ask_user","question":"Which colour?","thought":"Two teapots."}`)
	f.llm.Reply(toolCall("click", `{"id":"a-1"}`))
	f.llm.Reply(toolCall("click", `{"id":"a-4"}`))
	f.llm.Reply(toolCall("type", `{"id":"a-2","text":"Green teapot"}`))
	f.llm.Reply(`{"type":"final","answer":"Searched.","thought":"Done."}`)
	play("Green")
	f.llm.Reply(`{"type":"ask_user","question":"Which colour?","thought":"Two teapots."}`)
	f.llm.Reply(toolCall("click", `{"id":"a-1"}`))
	f.llm.Reply(toolCall("type", `{"id":"a-2","text":"Blue teapot"}`))
	got := play("Blue")
	var caches []string
	for _, r := range got[1:] {
		caches = append(caches, r.Metrics.Cache)
	}
	typed := got[4]
	if want := []string{"miss", "miss", "hit", "miss", "hit"}; !equal(caches, want) || typed.Tool == nil || typed.Tool.Parameters["text"] != "Blue teapot" {
		t.Errorf("repeat = %q typing %+v, want %q with the colour the user gave this time", caches, typed.Tool, want)
	}
}
