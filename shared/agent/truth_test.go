package agent

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/search/searchtest"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/usertime"
	"github.com/screenagent/backend/shared/validation"
)

// Each case reproduces, on a page of its own, a statement the server used to make to the model
// that the page contradicted.

func TestVerificationTellsTheTruth(t *testing.T) {
	t.Parallel()
	const form = `<form><h1>Your details</h1><input id="1" name="zip"/><button id="2">Continue</button></form>`
	tests := []struct {
		name              string
		firstDOM, nextDOM string
		nextURL           string
		expect, eval      string
		wantVerdict       string
		wantInPrompt      []string
		wantNotInPrompt   []string
	}{
		{
			name:     "a new URL whose form answers with an error alert is not verified",
			firstDOM: form, nextURL: "https://shop.example/step2",
			nextDOM:      `<form><div role="alert">Please correct the error below</div><input id="1" name="zip"/><button id="2">Continue</button></form>`,
			expect:       "url changes",
			wantVerdict:  tasks.Unverified,
			wantInPrompt: []string{`the page shows errors since: alert "Please correct the error below"`, "verification: failed"},
		},
		{
			name:     "a field the page marked invalid is an error",
			firstDOM: form, nextURL: "https://shop.example/",
			nextDOM:      `<form><h1>Your details</h1><input id="1" name="zip" aria-invalid="true"/><button id="2">Continue</button></form>`,
			expect:       "page changes",
			wantVerdict:  tasks.Unverified,
			wantInPrompt: []string{`invalid field "zip"`},
		},
		{
			name:     "an error message in German under the field",
			firstDOM: form, nextURL: "https://shop.example/",
			nextDOM:      `<form><h1>Your details</h1><input id="1" name="zip"/><p>Die Postleitzahl ist ungültig.</p><button id="2">Continue</button></form>`,
			expect:       "page changes",
			wantVerdict:  tasks.Unverified,
			wantInPrompt: []string{`text "Die Postleitzahl ist ungültig."`},
		},
		{
			name:         "a new URL whose page still shows the error it had is not verified",
			firstDOM:     `<form><p>ZIP code must be 5 digits</p><input id="1" name="zip" value="123"/><button id="2">Continue</button></form>`,
			nextURL:      "https://shop.example/checkout?step=2",
			nextDOM:      `<form><p>ZIP code must be 5 digits</p><input id="1" name="zip" value="123"/><button id="2">Continue</button></form>`,
			expect:       "url changes",
			wantVerdict:  tasks.Unverified,
			wantInPrompt: []string{`text "ZIP code must be 5 digits"`},
		},
		{
			name:            "an error that was already there does not fail the next field",
			firstDOM:        `<form><div role="alert">Please correct the errors below</div><input id="1" name="zip"/><button id="2">Continue</button></form>`,
			nextDOM:         `<form><div role="alert">Please correct the errors below</div><input id="1" name="zip" value="75001"/><button id="2">Continue</button></form>`,
			nextURL:         "https://shop.example/",
			expect:          "page changes",
			wantVerdict:     tasks.Verified,
			wantInPrompt:    []string{"verification: verified (the page changed)"},
			wantNotInPrompt: []string{"Verification of your last step"},
		},
		{
			name:            "one of two alternatives holds",
			firstDOM:        form,
			nextDOM:         `<p>Saved</p><a id="9" href="/">Home</a>`,
			nextURL:         "https://shop.example/",
			expect:          `url contains "/done", or text "Saved" appears`,
			wantVerdict:     tasks.Verified,
			wantInPrompt:    []string{`verification: verified ("Saved" is on the page)`},
			wantNotInPrompt: []string{"Verification of your last step"},
		},
		{
			name:            "a confirmation that names what it deleted is not \"still on the page\"",
			firstDOM:        `<ul><li>Old notes <button id="2">Delete</button></li></ul>`,
			nextDOM:         `<p>Draft "Old notes" was deleted.</p><a id="9" href="/">Home</a>`,
			nextURL:         "https://shop.example/",
			expect:          `a confirmation appears, or text "Old notes" disappears`,
			eval:            "success: the draft was deleted",
			wantVerdict:     tasks.Verified,
			wantNotInPrompt: []string{"still on the page", "Verification of your last step", "expected the expected outcome"},
		},
		{
			name:            "a word that only begins a longer word is gone (\"Subscribed\" is not the \"Subscribe\" button)",
			firstDOM:        `<form><input id="1" name="email"/><button id="2">Subscribe</button></form>`,
			nextDOM:         `<title>Subscribed — Shop</title><h1>Thanks!</h1><p>ada@example.com is now subscribed.</p>`,
			nextURL:         "https://shop.example/newsletter/subscribe",
			expect:          `text "Subscribe" disappears`,
			wantVerdict:     tasks.Verified,
			wantInPrompt:    []string{`verification: verified ("Subscribe" is gone)`},
			wantNotInPrompt: []string{"still on the page"},
		},
		{
			name:         "a button still there by its whole word is still on the page",
			firstDOM:     `<form><input id="1" name="email"/><button id="2">Subscribe</button></form>`,
			nextDOM:      `<form><input id="1" name="email" value="ada@example.com"/><button id="2">Subscribe</button></form>`,
			nextURL:      "https://shop.example/",
			expect:       `text "Subscribe" disappears`,
			wantVerdict:  tasks.Unverified,
			wantInPrompt: []string{`"Subscribe" is still on the page`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply("<Expect>" + tc.expect + "</Expect>\n" + reply("Going on.", "click(2)"))
			r1 := f.step(t, Request{DOM: tc.firstDOM})
			next := reply("Next.", "wait(1)")
			if tc.eval != "" {
				next = "<Evaluation>" + tc.eval + "</Evaluation>\n" + next
			}
			f.llm.Reply(next)
			f.llm.Reply(reply("Next.", "wait(1)"))
			r2 := f.step(t, Request{TaskID: r1.TaskID, URL: tc.nextURL, DOM: tc.nextDOM, Report: &tasks.Report{Status: "success"}})
			if r2.Verification == nil || r2.Verification.Verdict != tc.wantVerdict {
				t.Fatalf("verification = %+v, want %s", r2.Verification, tc.wantVerdict)
			}
			// What the server says of the step: the note now, the verdict in the next prompt.
			f.step(t, Request{TaskID: r1.TaskID, URL: tc.nextURL, DOM: tc.nextDOM, Report: &tasks.Report{Status: "success"}})
			prompts := f.llm.Requests()[1].User() + f.llm.Requests()[2].User()
			for _, want := range tc.wantInPrompt {
				if !strings.Contains(prompts, want) {
					t.Errorf("prompts lack %q:\n%s", want, prompts)
				}
			}
			for _, bad := range tc.wantNotInPrompt {
				if strings.Contains(prompts, bad) {
					t.Errorf("prompts say %q:\n%s", bad, prompts)
				}
			}
		})
	}
}

func TestRepeatWarningsOnlyOnAnUnchangedPage(t *testing.T) {
	t.Parallel()
	const list = `<ul><li>Hotel Bellevue <a id="12" href="/h/1">Details</a></li><li>Hotel Central <a id="13" href="/h/2">Details</a></li></ul>`
	type visit struct{ url, dom, action string }
	tests := []struct {
		name     string
		visits   []visit
		wantLast []string // in the last prompt
		notLast  []string
	}{
		{
			name: "a select that now shows the chosen option is a changed page",
			visits: []visit{
				{"https://travel.example/", `<select id="10" name="city"><option>Paris</option><option>Lyon</option></select><button id="11">Search</button>`, `setValue(10, "Lyon")`},
				{"https://travel.example/", `<select id="10" name="city"><option>Paris</option><option selected>Lyon</option></select><button id="11">Search</button>`, "click(11)"},
			},
			wantLast: []string{"~ marks the element whose value or state changed", "~[10] select"},
			notLast:  []string{"already chose", "unchanged"},
		},
		{
			name: "a page left for a detail page and come back to is history, not a repeat",
			visits: []visit{
				{"https://travel.example/list", list, "click(12)"},
				{"https://travel.example/h/1", `<h1>Hotel Bellevue</h1><a id="1" href="/list">Back</a>`, "click(1)"},
				{"https://travel.example/list", list, "click(13)"},
			},
			wantLast: []string{`You were on this page before: last time (step 1) you chose click(12) here, which led to "https://travel.example/h/1"`},
			notLast:  []string{"already chose"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var taskID string
			for i, v := range tc.visits {
				f.llm.Reply(reply("Going on.", v.action))
				req := Request{TaskID: taskID, URL: v.url, DOM: v.dom}
				if i > 0 {
					req.Report = &tasks.Report{Status: "success"}
				}
				r := f.step(t, req)
				if r.Action != v.action {
					t.Fatalf("step %d = %s, want %s allowed", i+1, r.Action, v.action)
				}
				taskID = r.TaskID
			}
			last := f.llm.Requests()[len(tc.visits)-1].User()
			for _, want := range tc.wantLast {
				if !strings.Contains(last, want) {
					t.Errorf("last prompt lacks %q:\n%s", want, last)
				}
			}
			for _, bad := range tc.notLast {
				if strings.Contains(last, bad) {
					t.Errorf("last prompt says %q:\n%s", bad, last)
				}
			}
		})
	}
}

// A failure followed by an action the server verified needs no extra verifySuccess step.
func TestAVerifiedStepAnswersAnEarlierFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("Opening the cart.", "click(3)"))
	r := f.step(t, Request{})
	f.llm.Reply("<Expect>url contains \"/cart\"</Expect>\n" + reply("Trying the link again.", "click(3)"))
	f.step(t, Request{TaskID: r.TaskID, Report: &tasks.Report{Status: "failure", Error: &tasks.ActionError{Message: "not clickable"}}})
	f.llm.Reply(reply("The cart is open.", `finish("The cart is open")`))
	r3 := f.step(t, Request{TaskID: r.TaskID, URL: "https://shop.example/cart", DOM: `<h1>Cart</h1>`, Report: &tasks.Report{Status: "success"}})
	if r3.Status != "completed" {
		t.Errorf("finish after a verified step = %s (%s), want completed", r3.Action, r3.Status)
	}
	if p := f.llm.Requests()[2].User(); strings.Contains(p, "Use verifySuccess") {
		t.Errorf("prompt asks for verifySuccess after a verified step:\n%s", p)
	}
}

func TestThePromptStatesLocalTimeStepsAndTheURLAsTheyAre(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.engine.Now = func() time.Time { return time.Date(2026, 11, 28, 16, 23, 0, 0, time.UTC) }
	clock, err := usertime.Parse("America/New_York", "en-US")
	if err != nil {
		t.Fatal(err)
	}
	f.llm.Reply(reply("Looking.", "click(2)"))
	f.step(t, Request{URL: "https://shop.example/trial?plan=pro&billing=yearly", Clock: clock})
	sys, user := f.llm.Requests()[0].System(), f.llm.Requests()[0].User()
	for _, want := range []string{
		`Current URL: "https://shop.example/trial?plan=pro&billing=yearly"`,
		"Current time: Sat, 28 Nov 2026 11:23 EST (UTC-05:00), the user's time zone America/New_York; the user's locale en-US",
		"Step 1 of at most 50",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	if n := strings.Count(sys, "Actions"); n != 1 {
		t.Errorf("system prompt has %d action list headings, want 1:\n%s", n, sys)
	}
	if !strings.Contains(sys, "<Missing>") || !strings.Contains(sys, "cookie dialog") || !strings.Contains(sys, "YYYY-MM-DD") {
		t.Errorf("system prompt lacks the <Missing> block or the guidance on cookies and dates:\n%s", sys)
	}
}

func TestTimezoneAndLocaleAreChecked(t *testing.T) {
	t.Parallel()
	url, query, dom := "https://a.example/", "q", "<p>x</p>"
	for _, tc := range []struct{ tz, locale, field string }{{"Atlantis/Capital", "", "timezone"}, {"", "en US", "locale"}} {
		_, err := NewRequest(Input{URL: &url, Query: &query, DOM: &dom, Timezone: tc.tz, Locale: tc.locale})
		var v *validation.Error
		if !errors.As(err, &v) || v.Field != tc.field {
			t.Errorf("NewRequest(timezone %q, locale %q) error = %v, want a validation error on %s", tc.tz, tc.locale, err, tc.field)
		}
	}
}

// A plan made in the reply that asked for a googleSearch survives the search: the next prompt
// shows it, and the search is said with the step that followed it.
func TestThePlanSurvivesAServerTool(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fake := withSearch(t, f)
	fake.Add("wool sock sizes", searchtest.Result{Title: "Sizes", URL: "https://socks.example/sizes", Content: "Size 42 is L.", Score: 0.9})
	f.llm.Reply("<Plan>1. Look up the size\n2. Search the shop\n3. Add to cart</Plan>\n" + reply("Checking sizes.", `googleSearch("wool sock sizes")`))
	f.llm.Reply("<Step>2</Step>\n" + reply("Size L it is.", `setValue(1, "wool socks L")`))
	f.llm.Reply(reply("Searching.", "click(2)"))
	r := f.step(t, Request{})
	f.step(t, Request{TaskID: r.TaskID, Report: &tasks.Report{Status: "success"}})
	next := f.llm.Requests()[2].User()
	for _, want := range []string{"[x] 1. \"Look up the size\"", "[>] 2. \"Search the shop\"", "[ ] 3. \"Add to cart\"",
		`Server: before this action the server ran googleSearch("wool sock sizes")`} {
		if !strings.Contains(next, want) {
			t.Errorf("prompt after the search lacks %q:\n%s", want, next)
		}
	}
}

// A step whose action reached its outcome is done at once: the next prompt shows the following
// step current, not the step just verified or the question just answered. An outcome that failed
// or an action the server replaced leaves the step current.
func TestThePlanAdvancesWhenAStepsOutcomeIsReached(t *testing.T) {
	t.Parallel()
	const plan = "<Plan>1. Search for the socks\n2. Open the first result\n3. Add it to the cart</Plan>\n"
	for _, tc := range []struct {
		name          string
		first         string
		next          Request
		want, notWant []string
	}{
		{
			name:  "a verified expectation completes its step",
			first: plan + `<Expect>url contains "/search"</Expect>` + "\n" + reply("Searching.", "click(2)"),
			next:  Request{URL: "https://shop.example/search?q=socks", DOM: `<h1>Results</h1><a id="4" href="/p/1">Wool socks</a>`, Report: &tasks.Report{Status: "success"}},
			want:  []string{`[x] 1. "Search for the socks"`, `[>] 2. "Open the first result"`},
		},
		{
			name:    "a failed expectation leaves its step current",
			first:   plan + `<Expect>url contains "/search"</Expect>` + "\n" + reply("Searching.", "click(2)"),
			next:    Request{Report: &tasks.Report{Status: "success"}},
			want:    []string{`[>] 1. "Search for the socks"`, `[ ] 2. "Open the first result"`},
			notWant: []string{`[x] 1.`},
		},
		{
			name:  "an answered question completes its step",
			first: "<Plan>1. Ask the user which size\n2. Search for that size</Plan>\n" + reply("I need the size.", `askUser("Which size?")`),
			next:  Request{Query: "size L"},
			want:  []string{`[x] 1. "Ask the user which size"`, `[>] 2. "Search for that size"`},
		},
		{
			name:    "an action without an expectation leaves the step to the model",
			first:   plan + reply("Searching.", "click(2)"),
			next:    Request{URL: "https://shop.example/search?q=socks", DOM: `<h1>Results</h1>`, Report: &tasks.Report{Status: "success"}},
			want:    []string{`[>] 1. "Search for the socks"`},
			notWant: []string{`[x] 1.`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply(tc.first)
			f.llm.Reply(reply("Next.", "scroll(\"down\")"))
			r := f.step(t, Request{})
			tc.next.TaskID = r.TaskID
			f.step(t, tc.next)
			got := f.llm.Requests()[1].User()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("next prompt lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("next prompt has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestPlanStepsCanBeSkippedAndGoneBackTo(t *testing.T) {
	t.Parallel()
	mem := &tasks.Memory{}
	updatePlan(mem, map[string]string{"Plan": "1. Open the form\n2. Ask the user for the date\n3. Fill the date\n4. Submit"})
	updatePlan(mem, map[string]string{"Step": "4 (skipped 2, 3)"})
	got := []string{}
	for _, s := range mem.Plan.Steps {
		got = append(got, s.Status)
	}
	want := []string{tasks.PlanDone, tasks.PlanSkipped, tasks.PlanSkipped, tasks.PlanInProgress}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("after <Step>4 (skipped 2, 3)</Step>: statuses %v, want %v", got, want)
	}
	updatePlan(mem, map[string]string{"Step": "3 of 4"})
	if s := mem.Plan.Steps; s[2].Status != tasks.PlanInProgress || s[3].Status != tasks.PlanPending {
		t.Errorf("after going back to step 3: statuses %v and %v, want in progress and pending", s[2].Status, s[3].Status)
	}
}

// The <Expect> block is the model's text: any of it parses into alternatives that each say
// what they check, without panicking.
func FuzzParseExpectation(f *testing.F) {
	for _, s := range []string{`url contains "/cart", or text "Added" appears`, `text "a or b" appears or page changes`, `"`, " or ", "or or or", `text "x" disappears; or else url changes`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		x := parseExpectation(text)
		if strings.TrimSpace(text) == "" {
			if x != nil {
				t.Errorf("parseExpectation(%q) = %+v, want nil", text, x)
			}
			return
		}
		if x == nil || len(x.Or) > maxExpectItems {
			t.Errorf("parseExpectation(%q) = %+v, want at most %d alternatives", text, x, maxExpectItems)
		}
	})
}

func TestAlternativesAreSplitOutsideQuotes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []string // each alternative's checks, as "appears:…", "gone:…", "url:…", "changes"
	}{
		{`text "Saved" appears, or url contains "/done"`, []string{"appears:Saved", "url:/done"}},
		{`text "Rock or Pop" appears`, []string{"appears:Rock or Pop"}},
		{`a confirmation appears, or text "Old notes" disappears`, []string{"", "gone:Old notes"}},
		{`text "A" appears and text "B" disappears or else page changes`, []string{"appears:A gone:B", "changes"}},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			var got []string
			for _, o := range outcomes(parseExpectation(tc.text)) {
				var parts []string
				for _, s := range o.TextAppears {
					parts = append(parts, "appears:"+s)
				}
				for _, s := range o.TextDisappears {
					parts = append(parts, "gone:"+s)
				}
				if o.URLContains != "" {
					parts = append(parts, "url:"+o.URLContains)
				}
				if o.PageChanges {
					parts = append(parts, "changes")
				}
				got = append(got, strings.Join(parts, " "))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got alternatives %q, want %q", got, tc.want)
			}
		})
	}
}

// The prompt says what the payment gate does before the model acts, and names only the elements
// the gate would hold; autonomous mode holds nothing and says nothing of it.
func TestTheGateIsExplainedBeforeTheActionAndOnlyWhereItHolds(t *testing.T) {
	t.Parallel()
	const plans = `<h1>Choose your plan</h1><a id="1" href="/free">Read the free articles</a><button id="2">Subscribe for $5/month</button><button id="3">Compare plans</button>`
	tests := []struct {
		name, mode, url, dom  string
		wantUser, notWantUser []string
		wantSys, notWantSys   []string
	}{
		{"careful: the paying button is named, nothing else", ModeCareful, "https://news.example/plans", plans,
			[]string{"SYSTEM NOTE: Payment gate: the server asks the user before a click on element 2 (it may"}, nil,
			[]string{"The payment gate holds an action", "<Payment>"}, nil},
		{"careful: a checkout page holds every action, said once", ModeCareful, "https://shop.example/checkout", `<h1>Shipping</h1><button id="1">Next</button>`,
			[]string{"Payment gate: the server asks the user before any action on this page, because of the checkout or payment address shop.example/checkout."}, nil, nil, nil},
		{"careful: a page without payments has no warning", ModeCareful, "https://clinic.example/book", `<h1>Choose a time</h1><button id="1">10:00</button><button id="2">Next</button>`,
			nil, []string{"Payment gate"}, nil, nil},
		{"autonomous: nothing is said", ModeAutonomous, "https://news.example/plans", plans,
			nil, []string{"Payment gate"}, nil, []string{"payment gate", "<Payment>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply(reply("Looking.", `scroll("down")`))
			f.step(t, Request{URL: tc.url, DOM: tc.dom, Mode: tc.mode})
			req := f.llm.Requests()[0]
			for _, c := range []struct {
				what, text    string
				want, notWant []string
			}{{"user", req.User(), tc.wantUser, tc.notWantUser}, {"system", req.System(), tc.wantSys, tc.notWantSys}} {
				for _, w := range c.want {
					if !strings.Contains(c.text, w) {
						t.Errorf("%s prompt lacks %q:\n%s", c.what, w, c.text)
					}
				}
				for _, w := range c.notWant {
					if strings.Contains(c.text, w) {
						t.Errorf("%s prompt has %q:\n%s", c.what, w, c.text)
					}
				}
			}
		})
	}
}

// What the server chose in the model's place is said to be the server's: a payment the gate held
// and asked about, a failed login the server handed to the user. The model is never told it
// asked a question it did not ask.
func TestTheServersChoicesAreSaidToBeTheServers(t *testing.T) {
	t.Parallel()
	careful := func(req Request) Request {
		req.Mode, req.DOM, req.URL = ModeCareful, `<h1>Basket</h1><p>Total: $49.00</p><button id="3">Pay $49.00</button>`, "https://shop.example/basket"
		if req.Query == "" {
			req.Query = "buy the socks"
		}
		return req
	}
	for _, tc := range []struct {
		name   string
		answer func(held Response) Request
		want   []string
	}{
		{"a held payment not answered yet", func(held Response) Request { return careful(Request{TaskID: held.TaskID}) },
			[]string{`(chosen by the server in place of yours)`, `The server asked the user "⚠️ Security check`}},
		{"a held payment answered", func(held Response) Request {
			return careful(Request{TaskID: held.TaskID, Query: "yes", ConfirmationID: held.ConfirmationID})
		}, []string{`- The server asked: "⚠️ Security check`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.llm.Reply(reply("I'll pay.", "click(3)"))
			held := f.step(t, careful(Request{}))
			f.llm.Reply(reply("Next.", "click(3)"))
			f.step(t, tc.answer(held))
			p := f.llm.Requests()[1].User()
			for _, want := range tc.want {
				if !strings.Contains(p, want) {
					t.Errorf("prompt lacks %q:\n%s", want, p)
				}
			}
			if strings.Contains(p, "You asked") {
				t.Errorf("the prompt says the model asked the gate's question:\n%s", p)
			}
		})
	}
	t.Run("a failed login", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		login := `<h1>Sign in</h1><form><input id="5" type="email"/><input id="6" type="password"/><button id="7">Sign in</button></form>`
		failed := `<h1>Sign in</h1><p role="alert">Invalid email or password.</p><form><input id="5" type="email"/><input id="6" type="password"/><button id="7">Sign in</button></form>`
		f.llm.Reply(reply("Signing in.", "click(7)"))
		r := f.step(t, Request{URL: "https://app.example/login", DOM: login, Query: "log in"})
		f.step(t, Request{TaskID: r.TaskID, URL: "https://app.example/login", DOM: failed, Query: "log in", Report: &tasks.Report{Status: "success"}})
		f.llm.Reply(reply("Trying the new password.", `setValue(6, "correct horse")`))
		f.step(t, Request{TaskID: r.TaskID, URL: "https://app.example/login", DOM: failed, Query: "the password is correct horse", Report: &tasks.Report{Status: "success"}})
		p := f.llm.Requests()[1].User()
		for _, want := range []string{"Step 2 (decided by the server, not by you):\n  Server's thought:", `- The server asked: "The site rejected the login details`} {
			if !strings.Contains(p, want) {
				t.Errorf("prompt after the server's question lacks %q:\n%s", want, p)
			}
		}
	})
}

// A verifySuccess the server cannot check is said to be undecided, not merely "succeeded".
func TestAnUncheckableVerifySuccessIsUndecided(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.Reply(reply("Checking.", `verifySuccess("the socks are in the cart")`))
	r := f.step(t, Request{})
	f.llm.Reply(reply("Done.", `finish("Added")`))
	f.step(t, Request{TaskID: r.TaskID, Report: &tasks.Report{Status: "success"}})
	p := f.llm.Requests()[1].User()
	if want := "Result: succeeded; verification: undecided (nothing in it the server can check"; !strings.Contains(p, want) {
		t.Errorf("prompt lacks %q:\n%s", want, p)
	}
}

// TestAFailedBatchIsNamedWhole: the note after a batch whose outcome failed names the batch's
// actions, not only its first (the expectation was for the batch as a whole).
func TestAFailedBatchIsNamedWhole(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dom := `<form><input id="1" name="email"/><button id="2">Subscribe</button></form>`
	f.llm.Reply("<Thought>I subscribe.</Thought>\n<Actions>\nsetValue(1, \"ada@example.com\")\nclick(2)\n</Actions>\n<Expect>url contains \"/thanks\"</Expect>")
	f.llm.Reply(reply("Next.", "wait(1)"))
	r1 := f.step(t, Request{DOM: dom, Batch: true})
	f.step(t, Request{TaskID: r1.TaskID, DOM: dom, Batch: true, Report: &tasks.Report{Status: "success", Results: []tasks.ActionResult{
		{Action: `setValue(1, "ada@example.com")`, Status: "success"}, {Action: "click(2)", Status: "success"},
	}}})
	prompt := f.llm.Requests()[1].User()
	want := `Verification of your last step (setValue(1, "ada@example.com"); click(2)) failed`
	if !strings.Contains(prompt, want) {
		t.Errorf("prompt after the failed batch lacks %q:\n%s", want, prompt)
	}
}
