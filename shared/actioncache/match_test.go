package actioncache

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
)

func TestTargetsResolveToExactlyOneElement(t *testing.T) {
	t.Parallel()
	const original = `<ul><li>Alice <button id="1">Delete</button></li><li>Bob <button id="2">Delete</button></li></ul><a id="3" href="/help">Help</a>`
	target := func(t *testing.T, dom string, id int) Target {
		t.Helper()
		tg, ok := targetOf(pagemodel.Parse(dom), id)
		if !ok {
			t.Fatalf("no element %d", id)
		}
		return tg
	}
	bobs := target(t, original, 2)
	for _, tc := range []struct {
		name     string
		dom      string
		t        Target
		wantID   int
		wantFits int
	}{
		{"the same page", original, bobs, 2, 1},
		{"ids renumbered", `<ul><li>Alice <button id="31">Delete</button></li><li>Bob <button id="17">Delete</button></li></ul><a id="5" href="/help">Help</a>`, bobs, 17, 1},
		{"rows reordered", `<ul><li>Bob <button id="8">Delete</button></li><li>Alice <button id="9">Delete</button></li></ul>`, bobs, 8, 1},
		{"the row is gone", `<ul><li>Alice <button id="1">Delete</button></li></ul>`, bobs, 0, 0},
		{"two identical rows", `<ul><li>Bob <button id="1">Delete</button></li><li>Bob <button id="2">Delete</button></li></ul>`, bobs, 2, 2},
		{"identical controls outside rows", `<div><button id="4">Save</button></div><div><button id="5">Save</button></div>`, target(t, `<div><button id="4">Save</button></div>`, 4), 5, 2},
		{"another label", `<ul><li>Bob <button id="2">Remove</button></li></ul>`, bobs, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, fits := resolve(pagemodel.Parse(tc.dom), tc.t)
			if fits != tc.wantFits || fits == 1 && id != tc.wantID {
				t.Errorf("resolve = id %d, %d fits; want id %d, %d fits", id, fits, tc.wantID, tc.wantFits)
			}
		})
	}
}

func TestPageKeys(t *testing.T) {
	t.Parallel()
	const base = `<div><h1>Inbox (3)</h1><p>Updated 10:42</p><input id="1" name="q" value="x"/><button id="2">Search</button></div>`
	key := PageKey("https://mail.example/u/123/inbox?page=2&tab=all", pagemodel.Parse(base))
	for _, tc := range []struct {
		name, url, dom string
		same           bool
	}{
		{"ids renumbered, counters, times and typed values changed", "https://mail.example/u/456/inbox?tab=all&page=3",
			`<div><h1>Inbox (7)</h1><p>Updated 11:05</p><input id="9" name="q" value="other"/><button id="8">Search</button></div>`, true},
		{"another control", "https://mail.example/u/123/inbox?page=2&tab=all",
			`<div><h1>Inbox (3)</h1><p>Updated 10:42</p><input id="1" name="q"/><button id="2">Search</button><button id="3">Delete all</button></div>`, false},
		{"other words on the page", "https://mail.example/u/123/inbox?page=2&tab=all",
			`<div><h1>Inbox (3)</h1><p>Your account is locked</p><input id="1" name="q"/><button id="2">Search</button></div>`, false},
		{"another path", "https://mail.example/u/123/sent?page=2&tab=all", base, false},
		{"another query value without digits", "https://mail.example/u/123/inbox?page=2&tab=starred", base, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PageKey(tc.url, pagemodel.Parse(tc.dom)) == key; got != tc.same {
				t.Errorf("same key = %v, want %v", got, tc.same)
			}
		})
	}
}

func TestTaskKeyIgnoresFormOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`Subscribe “ada@example.com” to the newsletter.`, `  subscribe "ada@example.com"   to the NEWSLETTER`, true},
		{`Subscribe "ada@example.com" to the newsletter.`, `Subscribe "bob@example.com" to the newsletter.`, false},
		{`Book the 10:00 appointment`, `Book the 11:00 appointment`, false},
	} {
		if got := TaskKey(tc.a) == TaskKey(tc.b); got != tc.same {
			t.Errorf("TaskKey(%q) == TaskKey(%q) is %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestAnswersAreReadFromTheCurrentPage(t *testing.T) {
	t.Parallel()
	const task = "What does the Blue teapot cost?"
	const learned = `<div><h1>Blue teapot</h1><p>Price</p><p>$24.50</p><p>Ships in 2 days</p><button id="1">Add to cart</button></div>`
	ans, ok := learnAnswer("The Blue teapot costs $24.50.", task, pagemodel.Parse(learned))
	if !ok {
		t.Fatal("learnAnswer failed on a page that shows the price")
	}
	if len(ans.Facts) != 1 || ans.Facts[0].Value != "$24.50" {
		t.Fatalf("facts = %+v, want the price alone (the product's name comes from the task)", ans.Facts)
	}
	for _, tc := range []struct {
		name, dom string
		want      string
		ok        bool
	}{
		{"the same page, renumbered", strings.Replace(learned, `id="1"`, `id="7"`, 1), "The Blue teapot costs $24.50.", true},
		{"the price changed", strings.Replace(learned, "$24.50", "$19.00", 1), "", false},
		{"the price is gone", strings.Replace(learned, "<p>$24.50</p>", "", 1), "", false},
		{"the label before it changed", strings.Replace(learned, "<p>Price</p>", "<p>Was</p>", 1), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ans.Rederive(pagemodel.Parse(tc.dom))
			if ok != tc.ok || got != tc.want {
				t.Errorf("Rederive = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if _, ok := learnAnswer("It costs $24.50.", task, pagemodel.Parse(`<ul><li>Price</li><li>$24.50</li><li>Price</li><li>$30.00</li></ul>`)); ok {
		t.Error("learnAnswer located a value where lines alike give another, want a refusal")
	}
}

func FuzzAnswerTemplate(f *testing.F) {
	f.Add("The Blue teapot costs $24.50.", "What does it cost?", `<p>Price</p><p>$24.50</p>`)
	f.Add("", "", "")
	f.Add("a  b\u00a0c «d» 12", "x", `<li>12</li><li>d</li><a id="1">a b</a>`)
	f.Fuzz(func(t *testing.T, answer, task, dom string) {
		pg := pagemodel.Parse(dom)
		ans, ok := learnAnswer(answer, task, pg)
		if !ok {
			return
		}
		// Read back on the page it was learned from, the template gives the answer itself.
		if got, ok := ans.Rederive(pg); !ok || got != answer {
			t.Errorf("Rederive on the learning page = %q, %v; want %q", got, ok, answer)
		}
	})
}

func TestLongTasksAreNotLearned(t *testing.T) {
	t.Parallel()
	c := &Cache{}
	pg := pagemodel.Parse(`<button id="1">Next</button>`)
	var b []byte
	for i := 0; i <= MaxSteps; i++ {
		turn := c.Open(context.Background(), Open{TenantID: "t", Task: "page through", Trail: b, URL: "https://x.example/", Page: pg})
		b = turn.Record(Decided{Action: Act{Name: "click", Form: "click(#)", Element: 1, HasElement: true}})
	}
	var tr trail
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 0 || !tr.NoLearn || tr.Off == "" {
		t.Errorf("trail after %d steps = %d steps, noLearn %v, off %q; want it emptied, never learned and off", MaxSteps+1, len(tr.Steps), tr.NoLearn, tr.Off)
	}
}
