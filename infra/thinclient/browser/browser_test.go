package browser

import (
	"bytes"
	"context"
	"fmt"
	"github.com/screenagent/backend/shared/runs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var (
	shared     *Browser
	sharedErr  error
	sharedOnce sync.Once
)

// TestMain shares one Chromium between the package's tests and closes it at the end.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

// newTab opens a fresh tab in the package's Chromium; no test is skipped for a missing browser.
func newTestTab(t *testing.T) *Tab {
	t.Helper()
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		shared, sharedErr = Launch(ctx, Options{})
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tab, err := shared.NewTab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	return tab
}

// servePages serves testdata/ on a loopback test server.
func servePages(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(srv.Close)
	return srv.URL
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestScreenshotOfLocalPage(t *testing.T) {
	tab := newTestTab(t)
	ctx := testCtx(t)
	if err := tab.Navigate(ctx, servePages(t)+"/form.html"); err != nil {
		t.Fatal(err)
	}
	png, err := tab.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("got %d bytes starting %q, want a PNG", len(png), png[:min(8, len(png))])
	}
	if dir := os.Getenv("THINCLIENT_SCREENSHOT_DIR"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "form.png"), png, 0o644)
	}
}

// open navigates a fresh tab to a test page and marks its elements.
func open(t *testing.T, page string) (*Tab, context.Context, string) {
	t.Helper()
	tab := newTestTab(t)
	ctx := testCtx(t)
	base := servePages(t)
	if err := tab.Navigate(ctx, base+"/"+page); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Capture(ctx); err != nil {
		t.Fatal(err)
	}
	return tab, ctx, base
}

// agentID is the data-agent-id the capture gave the element matching selector.
func agentID(t *testing.T, tab *Tab, ctx context.Context, selector string) string {
	t.Helper()
	var id string
	js := fmt.Sprintf("document.querySelector(%q).getAttribute('data-agent-id')", selector)
	if err := tab.run(ctx, evalTimeout, chromedp.Evaluate(js, &id)); err != nil {
		t.Fatalf("agent id of %s: %v", selector, err)
	}
	return id
}

func pageText(t *testing.T, tab *Tab, ctx context.Context, selector string) string {
	t.Helper()
	var s string
	if err := tab.run(ctx, evalTimeout, chromedp.Evaluate(fmt.Sprintf("document.querySelector(%q).textContent", selector), &s)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCaptureBuildsDOM(t *testing.T) {
	tab, ctx, _ := open(t, "form.html")
	c, err := tab.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := c.URL[:strings.Index(c.URL, "/form.html")]
	want := `<title>Contact us</title><body><header><nav><a id="1" href="BASE/">Home</a> </nav></header> <main> <h1>Contact us</h1> ` +
		`<form> <label id="2">Full name</label> <input id="3" type="text" name="fullname" value="Ada"> ` +
		`<label>Email <input id="4" type="email" name="email" placeholder="you@example.com" autocomplete="email"></label> ` +
		`<select id="5" name="topic" aria-label="Topic"><option>Sales</option><option selected>Support</option></select> ` +
		`<textarea id="6" name="message">Hello &lt;there&gt;</textarea> <input id="7" type="checkbox" name="news" checked> ` +
		`<button id="8" type="submit">Send</button> <button id="9" disabled>Later</button> </form> ` +
		`<table><tbody><tr><th>Name</th><th>Title</th></tr><tr><td><a id="10" href="BASE/p/grace">Grace Hopper</a></td><td>Rear Admiral</td></tr></tbody></table> ` +
		`<div role="dialog" aria-label="Cookies" aria-modal="true"><p>We use cookies.</p><div id="11" role="button">Accept</div></div> ` +
		`<div id="12">Clickable card</div> </main> </body>`
	want = strings.ReplaceAll(want, "BASE", base)
	if c.DOM != want {
		t.Errorf("dom:\ngot  %s\nwant %s", c.DOM, want)
	}
	for _, gone := range []string{"Secret", "Never shown", "not text", "csrf", "class="} {
		if strings.Contains(c.DOM, gone) {
			t.Errorf("dom has %q, which is hidden or not page content", gone)
		}
	}
}

func TestCaptureKeepsIDsAndNumbersNewElements(t *testing.T) {
	tab, ctx, _ := open(t, "form.html")
	first, err := tab.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	js := `document.querySelector('main').insertAdjacentHTML('afterbegin', '<button>New one</button>')`
	if err := tab.run(ctx, evalTimeout, chromedp.Evaluate(js, nil)); err != nil {
		t.Fatal(err)
	}
	second, err := tab.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(second.DOM, `<button id="13">New one</button>`) {
		t.Errorf("got %s, want the new button as id 13", second.DOM)
	}
	if got := strings.Replace(second.DOM, `<button id="13">New one</button>`, "", 1); got != first.DOM {
		t.Errorf("ids changed between captures:\nfirst  %s\nsecond %s", first.DOM, second.DOM)
	}
}

func TestSnapshotHoldsTheViewport(t *testing.T) {
	tab, ctx, _ := open(t, "actions.html")
	c, err := tab.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot
	if s.URL != c.URL || s.Title != "Actions" || s.Timestamp == 0 {
		t.Errorf("got url %q title %q timestamp %d, want the page's", s.URL, s.Title, s.Timestamp)
	}
	var names []string
	for _, e := range s.Elements {
		names = append(names, e.Text+e.AriaLabel+e.Placeholder)
		if e.BBox == nil || e.BBox.Width <= 0 || !strings.HasPrefix(e.ID, "agent-") {
			t.Errorf("element %+v: want an agent id and a bounding box", e)
		}
	}
	got := strings.Join(names, "|")
	if !strings.Contains(got, "Go") || !strings.Contains(got, "Your name") || strings.Contains(got, "Bottom button") {
		t.Errorf("got elements %s, want those in the viewport and not the bottom button", got)
	}
	if !strings.Contains(s.VisibleText, "nothing yet") || strings.Contains(s.VisibleText, "Bottom button") {
		t.Errorf("got visible text %q, want the viewport's text only", s.VisibleText)
	}
}

func TestActions(t *testing.T) {
	t.Run("click", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.Click(ctx, agentID(t, tab, ctx, "#go")); !o.OK {
			t.Fatalf("got %+v, want success", o)
		}
		if got := pageText(t, tab, ctx, "#out"); got != "clicked" {
			t.Errorf("got %q, want the click handler's text", got)
		}
	})
	t.Run("click intercepted", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		o := tab.Click(ctx, agentID(t, tab, ctx, "#covered"))
		if o.OK || o.Code != CodeClickIntercepted || !strings.Contains(o.Message, "cookie-banner") {
			t.Fatalf("got %+v, want %s naming the cookie banner", o, CodeClickIntercepted)
		}
		if got := pageText(t, tab, ctx, "#out"); got != "nothing yet" {
			t.Errorf("got %q, want the covered button not clicked", got)
		}
	})
	t.Run("missing element", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.Click(ctx, "agent-999"); o.OK || o.Code != CodeElementNotFound {
			t.Fatalf("got %+v, want %s", o, CodeElementNotFound)
		}
	})
	t.Run("set value, select and checkbox", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.SetValue(ctx, agentID(t, tab, ctx, "#name"), "Ada"); !o.OK {
			t.Fatal(o)
		}
		if got := pageText(t, tab, ctx, "#out"); got != "typed Ada" {
			t.Errorf("got %q, want the input event seen", got)
		}
		if o := tab.SetValue(ctx, agentID(t, tab, ctx, "#size"), "Large"); !o.OK {
			t.Fatal(o)
		}
		if got := pageText(t, tab, ctx, "#out"); got != "size l" {
			t.Errorf("got %q, want the option chosen by its text", got)
		}
		if o := tab.SetValue(ctx, agentID(t, tab, ctx, "#size"), "Huge"); o.OK || !strings.Contains(o.Message, "Small, Large") {
			t.Errorf("got %+v, want a failure listing the options", o)
		}
		if o := tab.SetValue(ctx, agentID(t, tab, ctx, "#agree"), "true"); !o.OK {
			t.Fatal(o)
		}
		var checked bool
		_ = tab.run(ctx, evalTimeout, chromedp.Evaluate("document.querySelector('#agree').checked", &checked))
		if !checked {
			t.Error("got the checkbox unchecked, want checked")
		}
	})
	t.Run("search submits the search box", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.Search(ctx, "blue teapot"); !o.OK {
			t.Fatal(o)
		}
		if u := tab.URL(ctx); !strings.Contains(u, "/results.html?q=blue+teapot") {
			t.Errorf("got %s, want the search form submitted", u)
		}
	})
	t.Run("scroll", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.ScrollScreen(ctx, true); !o.OK || !strings.HasPrefix(o.Message, "Scrolled down") {
			t.Errorf("got %+v, want a scroll down", o)
		}
		if o := tab.ScrollScreen(ctx, false); !o.OK || !strings.Contains(o.Message, "to the top") {
			t.Errorf("got %+v, want back at the top", o)
		}
		if o := tab.ScrollScreen(ctx, false); !o.OK || !strings.Contains(o.Message, "nothing moved") {
			t.Errorf("got %+v, want nothing moved at the top", o)
		}
	})
	t.Run("press key and unknown key", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.Type(ctx, agentID(t, tab, ctx, "input[name=q]"), "kettle", true); !o.OK {
			t.Fatal(o)
		}
		if u := tab.URL(ctx); !strings.Contains(u, "q=kettle") {
			t.Errorf("got %s, want Enter to submit the form", u)
		}
		if o := tab.Press(ctx, "F13"); o.OK || o.Code != CodeUnknownKey {
			t.Errorf("got %+v, want %s", o, CodeUnknownKey)
		}
	})
	t.Run("follows a new tab", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.Click(ctx, agentID(t, tab, ctx, "#newtab")); !o.OK {
			t.Fatal(o)
		}
		c, err := tab.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.Title != "Contact us" {
			t.Errorf("got page %q, want the form opened in the new tab", c.Title)
		}
	})
	t.Run("navigation error", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if o := tab.Open(ctx, "http://"+addr+"/"); o.OK || o.Code != CodeNavigation {
			t.Errorf("got %+v, want %s", o, CodeNavigation)
		}
	})
	t.Run("browser dialog", func(t *testing.T) {
		tab, ctx, _ := open(t, "actions.html")
		if o := tab.DismissDialog(ctx); o.OK || o.Code != CodeNoDialog {
			t.Errorf("got %+v, want %s with no dialog open", o, CodeNoDialog)
		}
		if o := tab.Click(ctx, agentID(t, tab, ctx, "#alerting")); !o.OK {
			t.Fatal(o)
		}
		c, err := tab.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.DOM, `<dialog role="alertdialog" aria-modal="true">The browser shows a alert dialog: Are you sure?</dialog>`) {
			t.Errorf("got %s, want the alert in front of the page", c.DOM[:min(200, len(c.DOM))])
		}
		if o := tab.Click(ctx, "agent-1"); o.OK || o.Code != CodeDialogBlocksPage {
			t.Errorf("got %+v, want %s", o, CodeDialogBlocksPage)
		}
		if o := tab.DismissDialog(ctx); !o.OK {
			t.Fatal(o)
		}
		if _, err := tab.Capture(ctx); err != nil {
			t.Errorf("capture after the dialog: %v", err)
		}
	})
}

func TestIDsAreUniqueAcrossTheTabsPages(t *testing.T) {
	tab, ctx, base := open(t, "form.html")
	if err := tab.Navigate(ctx, base+"/actions.html"); err != nil {
		t.Fatal(err)
	}
	c, err := tab.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.DOM, `<p>nothing yet</p> <button id="13">Go</button>`) {
		t.Errorf("got %.200s, want the second page's ids to follow the first page's 12", c.DOM)
	}
}

// The run API's snapshot says what a user sees of each element: labels, states, options, and
// for look-alikes the card they belong to; the dom string keeps flex items apart.
func TestSnapshotCarriesStatesLabelsOptionsAndContext(t *testing.T) {
	tab, ctx, _ := open(t, "states.html")
	c, err := tab.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]runs.Element{}
	for _, e := range c.Snapshot.Elements {
		byText[e.Tag+":"+e.Label+e.Text] = e
	}
	is := func(b *bool, want bool) bool { return b != nil && *b == want }
	checks := []struct {
		name string
		ok   bool
	}{
		{"the chosen radio is checked, by its label", is(byText["input:Flex €89"].Checked, true)},
		{"the other radio is not", is(byText["input:Basic €59"].Checked, false)},
		{"the terms box keeps its links' words", is(byText["input:I agree to the terms and the privacy policy"].Checked, false)},
		{"a pressed toggle", is(byText["button:Yearly"].Pressed, true)},
		{"a collapsed menu", is(byText["button:More"].Expanded, false)},
	}
	for _, ck := range checks {
		if !ck.ok {
			t.Errorf("%s: got elements %+v", ck.name, c.Snapshot.Elements)
		}
	}
	var contexts, options []string
	for _, e := range c.Snapshot.Elements {
		if e.Text == "Add to cart" {
			contexts = append(contexts, e.Context)
		}
		if e.Tag == "select" {
			options = e.Options
		}
	}
	if len(contexts) != 2 || !strings.Contains(contexts[0], "Steel bottle") || !strings.Contains(contexts[1], "Glass bottle") {
		t.Errorf("got contexts %q, want each button's card", contexts)
	}
	if strings.Join(options, "|") != "Paris|Lyon|Nice" {
		t.Errorf("got options %q, want Paris|Lyon|Nice", options)
	}
	if !strings.Contains(c.DOM, "06:19 → 08:44 2 h 25 min") {
		t.Errorf("dom glues the flex items together: %s", c.DOM)
	}
}

// TestCaptureReportsMaskedFields: a password field a show-password toggle made a text field is
// still reported masked, as is one a style masks; the snapshot carries autocomplete, inputmode
// and maxlength, and the dom string says masked in the style the server reads.
func TestCaptureReportsMaskedFields(t *testing.T) {
	tab, ctx, _ := open(t, "secret.html")
	if o := tab.Click(ctx, agentID(t, tab, ctx, "#show")); !o.OK {
		t.Fatalf("click the toggle: %+v", o)
	}
	c, err := tab.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]runs.Element{}
	for _, e := range c.Snapshot.Elements {
		byName[e.Name] = e
	}
	if e := byName["tunnus"]; e.Type != "text" || !e.Masked {
		t.Errorf("toggled password field = %+v, want type text and masked", e)
	}
	if e := byName["tarra"]; !e.Masked {
		t.Errorf("styled field = %+v, want masked", e)
	}
	if e := byName["kayttaja"]; e.Masked {
		t.Errorf("user field = %+v, want not masked", e)
	}
	if e := byName["koodi"]; e.Autocomplete != "one-time-code" || e.InputMode != "numeric" || e.MaxLength != 6 {
		t.Errorf("code field = %+v, want autocomplete, inputMode and maxLength", e)
	}
	if n := strings.Count(c.DOM, `style="-webkit-text-security:disc"`); n != 2 {
		t.Errorf("dom marks %d fields masked, want 2: %s", n, c.DOM)
	}
}
