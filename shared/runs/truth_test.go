package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/runs"
)

// Each case reproduces, on a page of its own, something the run API's prompt used to hide or
// misstate.

func TestRunPromptShowsWhatTheUserSees(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		snapshot string
		want     []string
		notWant  []string
	}{
		{
			name: "radios and a box with their labels and states",
			snapshot: `{"url":"https://air.example/fares","elements":[
				{"id":"a1","tag":"input","type":"radio","name":"fare","label":"Basic €59","checked":false},
				{"id":"a2","tag":"input","type":"radio","name":"fare","label":"Flex €89","checked":true},
				{"id":"a3","tag":"input","type":"checkbox","name":"terms","label":"I agree to the terms and the privacy policy","checked":false}]}`,
			want: []string{`[a1] input type="radio" label="Basic €59" name="fare" unchecked`, `[a2] input type="radio" label="Flex €89" name="fare" checked`,
				`[a3] input type="checkbox" label="I agree to the terms and the privacy policy" name="terms" unchecked`},
		},
		{
			name: "a toggle's pressed state and a menu's expanded state",
			snapshot: `{"url":"https://saas.example/pricing","elements":[
				{"id":"b1","tag":"button","text":"Yearly","pressed":true},{"id":"b2","tag":"button","text":"Monthly","pressed":false},
				{"id":"b3","tag":"button","text":"Account","expanded":false}]}`,
			want: []string{`[b1] button text="Yearly" pressed`, `[b2] button text="Monthly" not pressed`, `[b3] button text="Account" collapsed`},
		},
		{
			name: "identical buttons say which card they belong to",
			snapshot: `{"url":"https://shop.example/","elements":[
				{"id":"c1","tag":"button","text":"Add to cart","context":"Steel bottle 750 ml $19"},
				{"id":"c2","tag":"button","text":"Add to cart","context":"Glass bottle 500 ml $15"}]}`,
			want: []string{`[c1] button text="Add to cart" in="Steel bottle 750 ml $19"`, `[c2] button text="Add to cart" in="Glass bottle 500 ml $15"`},
		},
		{
			name: "identical buttons without a context are at least told apart",
			snapshot: `{"url":"https://shop.example/","elements":[
				{"id":"d1","tag":"button","text":"Add to cart"},{"id":"d2","tag":"button","text":"Add to cart"},{"id":"d3","tag":"a","text":"Cart"}]}`,
			want:    []string{`[d1] button text="Add to cart" alike=1/2`, `[d2] button text="Add to cart" alike=2/2`},
			notWant: []string{`[d3] a text="Cart" alike`},
		},
		{
			name: "identical buttons without a context say which text comes before each",
			snapshot: `{"url":"https://shop.example/","visibleText":"Bottles\nSteel bottle 750 ml\n$19\nAdd to cart\nGlass bottle 500 ml\n$15\nAdd to cart\nFooter",
				"elements":[{"id":"g1","tag":"button","text":"Add to cart"},{"id":"g2","tag":"button","text":"Add to cart"}]}`,
			want:    []string{`[g1] button text="Add to cart" after="Steel bottle 750 ml · $19"`, `[g2] button text="Add to cart" after="Glass bottle 500 ml · $15"`},
			notWant: []string{"alike="},
		},
		{
			name: "nothing is derived when the text does not show each look-alike once",
			snapshot: `{"url":"https://shop.example/","visibleText":"Add to cart\nSteel bottle\n$19\nGlass bottle\n$15",
				"elements":[{"id":"h1","tag":"button","text":"Add to cart"},{"id":"h2","tag":"button","text":"Add to cart"}]}`,
			want:    []string{`[h1] button text="Add to cart" alike=1/2`, `[h2] button text="Add to cart" alike=2/2`},
			notWant: []string{"after="},
		},
		{
			name:     "a long select says that options are left out",
			snapshot: `{"url":"https://form.example/","elements":[{"id":"e1","tag":"select","name":"state","value":"Alabama","options":[` + quotedOptions(70) + `]}]}`,
			want:     []string{`[e1] select name="state" value="Alabama" options=["State 1", "State 2"`, `"State 60", … 10 more]`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap, err := runs.DecodeSnapshot(json.RawMessage(tc.snapshot))
			if err != nil {
				t.Fatalf("DecodeSnapshot() error = %v", err)
			}
			f := newFixture(t)
			id := f.start(t, runs.ModeAutonomous)
			f.llm.Reply(`{"type":"final","answer":"ok"}`)
			f.step(t, id, snap, nil)
			prompt := f.llm.Requests()[0].User()
			for _, want := range tc.want {
				if !strings.Contains(prompt, want) {
					t.Errorf("prompt lacks %q:\n%s", want, prompt)
				}
			}
			for _, bad := range tc.notWant {
				if strings.Contains(prompt, bad) {
					t.Errorf("prompt has %q:\n%s", bad, prompt)
				}
			}
		})
	}
}

func quotedOptions(n int) string {
	opts := make([]string, n)
	for i := range opts {
		opts[i] = fmt.Sprintf("%q", fmt.Sprintf("State %d", i+1))
	}
	return strings.Join(opts, ",")
}

func TestElementFieldsAreChecked(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, snapshot, wantField string }{
		{"checked must be a boolean", `{"url":"https://a.example/","elements":[{"id":"x","tag":"input","checked":"yes"}]}`, "snapshot.elements[0].checked"},
		{"options must be strings", `{"url":"https://a.example/","elements":[{"id":"x","tag":"select","options":[1]}]}`, "snapshot.elements[0].options"},
		{"an option too long", `{"url":"https://a.example/","elements":[{"id":"x","tag":"select","options":["` + strings.Repeat("o", runs.MaxOptionText+1) + `"]}]}`, "snapshot.elements[0].options[0]"},
		{"a context too long", `{"url":"https://a.example/","elements":[{"id":"x","tag":"button","context":"` + strings.Repeat("c", runs.MaxContext+1) + `"}]}`, "snapshot.elements[0].context"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runs.DecodeSnapshot(json.RawMessage(tc.snapshot))
			var v *runs.ValidationError
			if !errors.As(err, &v) || !strings.HasPrefix(v.Field, tc.wantField) {
				t.Errorf("DecodeSnapshot() error = %v, want a validation error on %s", err, tc.wantField)
			}
		})
	}
}

// A 12-field form filled one field per step is progress: no reflection tells the model to vary
// its tools and none stops the run.
func TestAFormFilledFieldByFieldIsProgress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	form := &runs.Snapshot{URL: "https://insure.example/quote", Title: "Quote"}
	for i := range 12 {
		form.Elements = append(form.Elements, runs.Element{ID: fmt.Sprintf("f%d", i), Tag: "input", Name: fmt.Sprintf("field%d", i)})
		f.llm.Reply(toolCall("type", fmt.Sprintf(`{"id":"f%d","text":"value %d"}`, i, i)))
	}
	for i := range 12 {
		if r := f.step(t, id, form, success); r.Action != runs.ActionExecuteTool {
			t.Fatalf("step %d = %+v, want the next field typed", i+1, r)
		}
	}
	got, _ := f.svc.Get(context.Background(), "ten-a", "u-1", id)
	for _, r := range got.State.Reflections {
		if r.Efficiency != runs.EfficiencyHigh || r.ShouldAdjust {
			t.Errorf("reflection at step %d = %s (adjust %v, issues %q), want high with nothing to adjust", r.StepNumber, r.Efficiency, r.ShouldAdjust, r.Issues)
		}
	}
	for i, req := range f.llm.Requests() {
		if strings.Contains(req.User(), "SELF-REFLECTION") {
			t.Errorf("prompt %d shows a self-reflection during steady progress", i+1)
		}
	}
}

// A reflection that asks for an adjustment is shown on the step after it, once.
func TestAReflectionIsShownOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.start(t, runs.ModeAutonomous)
	calls := []string{
		toolCall("click", `{"id":"agent-1"}`), toolCall("type", `{"id":"agent-2","text":"socks"}`), toolCall("click", `{"id":"agent-3"}`),
		toolCall("scroll", `{"deltaY":300}`), toolCall("press", `{"key":"Tab"}`), toolCall("click", `{"id":"agent-1"}`), toolCall("scroll", `{"deltaY":-300}`),
	}
	failed := &runs.Result{Success: false, Error: "not found"}
	for _, c := range calls {
		f.llm.Reply(c)
	}
	results := []*runs.Result{nil, failed, success, failed, success, success, success}
	for i := range calls {
		f.step(t, id, page, results[i])
	}
	reqs := f.llm.Requests()
	if !strings.Contains(reqs[5].User(), "SELF-REFLECTION (step 5)") {
		t.Errorf("prompt of step 6 lacks the reflection of step 5:\n%s", reqs[5].User())
	}
	if strings.Contains(reqs[6].User(), "SELF-REFLECTION") {
		t.Errorf("prompt of step 7 shows the reflection again:\n%s", reqs[6].User())
	}
}

// The user's answer stays in view after the step that brought it, and the prompt says how
// many steps are left and what time it is where the user is.
func TestAnswersStepsLeftAndLocalTimeStayInView(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.Now = func() time.Time { return time.Date(2026, 11, 28, 16, 23, 0, 0, time.UTC) }
	resp, err := f.svc.Start(context.Background(), runs.StartRequest{TenantID: "ten-a", UserID: "u-1", Task: "Book the 10:00 appointment for today", Mode: runs.ModeAutonomous, Timezone: "Asia/Tokyo", Locale: "ja-JP"})
	if err != nil {
		t.Fatal(err)
	}
	id := resp.RunID
	f.llm.Reply(`{"type":"ask_user","question":"Which branch?"}`)
	f.step(t, id, page, nil)
	if _, err := f.svc.Answer(context.Background(), runs.AnswerRequest{TenantID: "ten-a", UserID: "u-1", RunID: id, Approved: true, Answer: "Shibuya"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		f.llm.Reply(toolCall("scroll", `{"deltaY":300}`))
	}
	for range 3 {
		f.step(t, id, page, success)
	}
	last := f.llm.Requests()[3].User()
	for _, want := range []string{
		`- To "Which branch?" (step 1): "Shibuya"`,
		"STEP 5 of at most 150\n",
		"TIME: Sun, 29 Nov 2026 01:23 JST (UTC+09:00), the user's time zone Asia/Tokyo; the user's locale ja-JP",
	} {
		if !strings.Contains(last, want) {
			t.Errorf("prompt of step 5 lacks %q:\n%s", want, last)
		}
	}
}

// The prompt says what the gate does before the model acts, and names only what the gate would
// hold on this page; autonomous mode holds nothing and says nothing of it, before or after.
func TestTheGateIsExplainedBeforeTheActionAndOnlyWhereItHolds(t *testing.T) {
	plans := &runs.Snapshot{URL: "https://news.example/plans", VisibleText: "Choose your plan", Elements: []runs.Element{
		{ID: "p1", Tag: "a", Text: "Read the free articles"}, {ID: "p2", Tag: "button", Text: "Subscribe for $5/month"},
		{ID: "p3", Tag: "button", Text: "Compare plans"}, {ID: "p4", Tag: "input", Name: "branch", Placeholder: "Central"}}}
	checkout := &runs.Snapshot{URL: "https://shop.example/checkout", VisibleText: "Shipping", Elements: []runs.Element{{ID: "c1", Tag: "button", Text: "Next"}}}
	plain := &runs.Snapshot{URL: "https://clinic.example/book", VisibleText: "Choose a time", Elements: []runs.Element{{ID: "b1", Tag: "button", Text: "10:00"}, {ID: "b2", Tag: "button", Text: "Next"}}}
	tests := []struct {
		name                   string
		mode                   runs.Mode
		page                   *runs.Snapshot
		wantUser, notWantUser  []string
		wantSystem, notWantSys []string
	}{
		{"careful: the paying button is named, nothing else", runs.ModeCareful, plans,
			[]string{"Payment gate: the server asks the user before a click on element p2 (it may"}, nil,
			[]string{"The payment gate holds a tool_call", `"payment": true`}, nil},
		{"careful: a checkout page holds every action, said once", runs.ModeCareful, checkout,
			[]string{"Payment gate: the server asks the user before any action on this page, because of the checkout or payment address shop.example/checkout."}, nil, nil, nil},
		{"careful: a page without payments has no warning", runs.ModeCareful, plain, nil, []string{"Payment gate"}, nil, nil},
		{"autonomous: the gate holds nothing, so nothing is said", runs.ModeAutonomous, plans, nil, []string{"Payment gate", "security warning"},
			nil, []string{"payment gate", `"payment": true`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			id := f.start(t, tc.mode)
			f.llm.Reply(toolCall("scroll", `{"deltaY":300}`))
			f.llm.Reply(`{"type":"final","answer":"ok"}`)
			f.step(t, id, tc.page, nil)
			f.step(t, id, tc.page, success)
			req := f.llm.Requests()[1]
			check := func(what, text string, want, notWant []string) {
				for _, w := range want {
					if !strings.Contains(text, w) {
						t.Errorf("%s prompt lacks %q:\n%s", what, w, text)
					}
				}
				for _, w := range notWant {
					if strings.Contains(text, w) {
						t.Errorf("%s prompt has %q:\n%s", what, w, text)
					}
				}
			}
			check("user", req.User(), tc.wantUser, tc.notWantUser)
			check("system", req.System(), tc.wantSystem, tc.notWantSys)
		})
	}
}
