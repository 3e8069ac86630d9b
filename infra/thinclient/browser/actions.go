package browser

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Error codes of a failed action, as the client reports them (lastActionError.code).
const (
	CodeElementNotFound  = "ELEMENT_NOT_FOUND"
	CodeClickIntercepted = "CLICK_INTERCEPTED"
	CodeNavigation       = "NAVIGATION_ERROR"
	CodeNoDialog         = "NO_DIALOG"
	CodeUnknownKey       = "UNKNOWN_KEY"
	CodeBrowser          = "BROWSER_ERROR"
	CodeDialogBlocksPage = "DIALOG_OPEN"
)

// Outcome is what happened when an action was carried out: Message describes it either way
// (what was done, or why it could not be).
type Outcome struct {
	OK      bool
	Code    string // set when !OK
	Message string
}

func done(format string, args ...any) Outcome {
	return Outcome{OK: true, Message: fmt.Sprintf(format, args...)}
}

func failed(code, format string, args ...any) Outcome {
	return Outcome{Code: code, Message: fmt.Sprintf(format, args...)}
}

// jsResult is what the page-side checks answer.
type jsResult struct {
	OK      bool    `json:"ok"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	ID      string  `json:"id"`
	Moved   float64 `json:"moved"`
	AtEnd   bool    `json:"atEnd"`
	AtTop   bool    `json:"atTop"`
}

func (r jsResult) outcome() Outcome { return failed(r.Code, "%s", r.Message) }

// blocked reports a browser dialog that keeps the page from taking input.
func (t *Tab) blocked() (Outcome, bool) {
	if d := t.dialogOpen(); d != nil {
		return failed(CodeDialogBlocksPage, "The browser's %s dialog (%q) blocks the page; dismiss it first", d.Type, d.Message), true
	}
	return Outcome{}, false
}

// Click clicks the element with a real mouse click at its centre, after checking that the
// click would land on it and not on something covering it.
func (t *Tab) Click(ctx context.Context, id string) Outcome {
	if o, ok := t.blocked(); ok {
		return o
	}
	var r jsResult
	if err := t.call(ctx, &r, "target", id); err != nil {
		return failed(CodeBrowser, "click %s: %v", id, err)
	}
	if !r.OK {
		return r.outcome()
	}
	if err := t.input(ctx, chromedp.MouseClickXY(r.X, r.Y)); err != nil {
		return failed(CodeBrowser, "click %s: %v", id, err)
	}
	t.settle(ctx)
	return done("Clicked element %s%s", id, t.dialogNote())
}

// SetValue replaces the value of an input, textarea or select (or checks a checkbox with
// "true"), firing the input and change events a user's typing fires.
func (t *Tab) SetValue(ctx context.Context, id, text string) Outcome {
	if o, ok := t.blocked(); ok {
		return o
	}
	var r jsResult
	if err := t.call(ctx, &r, "setValue", id, text); err != nil {
		return failed(CodeBrowser, "set value of %s: %v", id, err)
	}
	if !r.OK {
		return r.outcome()
	}
	t.settle(ctx)
	return done("Set the value of element %s", id)
}

// Type sets the field's value and, with submit, presses Enter in it.
func (t *Tab) Type(ctx context.Context, id, text string, submit bool) Outcome {
	o := t.SetValue(ctx, id, text)
	if !o.OK || !submit {
		return o
	}
	if p := t.pressIn(ctx, id, "Enter"); !p.OK {
		return p
	}
	return done("Typed into element %s and pressed Enter", id)
}

// Search types the query into the page's search box and presses Enter, as the search action asks.
func (t *Tab) Search(ctx context.Context, query string) Outcome {
	if o, ok := t.blocked(); ok {
		return o
	}
	var r jsResult
	if err := t.call(ctx, &r, "searchBox"); err != nil {
		return failed(CodeBrowser, "find the search box: %v", err)
	}
	if !r.OK {
		return r.outcome()
	}
	if o := t.Type(ctx, r.ID, query, true); !o.OK {
		return o
	}
	return done("Searched for %q in the page's search box", query)
}

// Scroll scrolls the page by dy pixels (positive: down) and says how far it moved.
func (t *Tab) Scroll(ctx context.Context, dy float64) Outcome {
	if o, ok := t.blocked(); ok {
		return o
	}
	var r jsResult
	if err := t.call(ctx, &r, "scroll", dy); err != nil {
		return failed(CodeBrowser, "scroll: %v", err)
	}
	t.settle(ctx)
	if r.AtEnd {
		// The end may have moved while the page settled (an infinite list loading more).
		var edge jsResult
		if err := t.call(ctx, &edge, "scrollEdge"); err == nil && !edge.AtEnd {
			if r.Moved > 0 {
				return done("Scrolled down %d pixels; more content loaded below", int(r.Moved))
			}
			return done("At the bottom of the page, where more content loaded")
		}
	}
	switch {
	case r.Moved == 0 && dy > 0:
		return done("Already at the bottom of the page; nothing moved")
	case r.Moved == 0:
		return done("Already at the top of the page; nothing moved")
	case r.Moved > 0 && r.AtEnd:
		return done("Scrolled down %d pixels, to the bottom of the page", int(r.Moved))
	case r.Moved > 0:
		return done("Scrolled down %d pixels", int(r.Moved))
	case r.AtTop:
		return done("Scrolled up %d pixels, to the top of the page", int(-r.Moved))
	}
	return done("Scrolled up %d pixels", int(-r.Moved))
}

// ScrollScreen scrolls by most of one screen, up or down.
func (t *Tab) ScrollScreen(ctx context.Context, down bool) Outcome {
	dy := float64(ViewportHeight) * 0.85
	if !down {
		dy = -dy
	}
	return t.Scroll(ctx, dy)
}

// Open loads rawURL in the tab.
func (t *Tab) Open(ctx context.Context, rawURL string) Outcome {
	if o, ok := t.blocked(); ok {
		return o
	}
	msg, err := t.navigate(ctx, rawURL)
	if err != nil {
		return failed(CodeNavigation, "%v", err)
	}
	t.settle(ctx)
	if msg != "" {
		return failed(CodeNavigation, "Opened %s but %s", rawURL, msg)
	}
	return done("Opened %s", rawURL)
}

// keys maps the key names of both grammars (KeyboardEvent.key values) to key events.
var keys = map[string]string{
	"Enter": kb.Enter, "Tab": kb.Tab, "Escape": kb.Escape, "Backspace": kb.Backspace, "Delete": kb.Delete,
	"ArrowUp": kb.ArrowUp, "ArrowDown": kb.ArrowDown, "ArrowLeft": kb.ArrowLeft, "ArrowRight": kb.ArrowRight,
	"Home": kb.Home, "End": kb.End, "PageUp": kb.PageUp, "PageDown": kb.PageDown, "Space": " ", " ": " ",
}

// Press presses a key on the focused element.
func (t *Tab) Press(ctx context.Context, key string) Outcome {
	if o, ok := t.blocked(); ok {
		return o
	}
	k, ok := keys[key]
	if !ok {
		names := make([]string, 0, len(keys))
		for n := range keys {
			if n != " " {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		return failed(CodeUnknownKey, "Unknown key %q; the keys are %s", key, strings.Join(names, ", "))
	}
	if err := t.input(ctx, chromedp.KeyEvent(k)); err != nil {
		return failed(CodeBrowser, "press %s: %v", key, err)
	}
	t.settle(ctx)
	return done("Pressed %s%s", key, t.dialogNote())
}

// input sends a real input event. An event that opens the browser's own dialog does not
// return until the dialog is closed, so the event counts as sent once a dialog shows.
func (t *Tab) input(ctx context.Context, act chromedp.Action) error {
	errc := make(chan error, 1)
	go func() { errc <- t.run(ctx, evalTimeout, act) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-errc:
			if t.dialogOpen() != nil {
				return nil
			}
			return err
		case <-tick.C:
			if t.dialogOpen() != nil {
				return nil
			}
		}
	}
}

// dialogNote tells that the action opened the browser's own dialog.
func (t *Tab) dialogNote() string {
	if d := t.dialogOpen(); d != nil {
		return fmt.Sprintf("; the browser opened a %s dialog: %q", d.Type, d.Message)
	}
	return ""
}

// pressIn focuses the element and presses the key in it.
func (t *Tab) pressIn(ctx context.Context, id, key string) Outcome {
	var r jsResult
	if err := t.call(ctx, &r, "focus", id); err != nil {
		return failed(CodeBrowser, "focus %s: %v", id, err)
	}
	if r.Code != "" {
		return r.outcome()
	}
	return t.Press(ctx, key)
}

// DismissDialog dismisses the browser's own alert, confirm or prompt.
func (t *Tab) DismissDialog(ctx context.Context) Outcome {
	d := t.dialogOpen()
	if d == nil {
		return failed(CodeNoDialog, "No browser dialog is open (dialogs drawn by the page are closed with their own buttons)")
	}
	if err := t.run(ctx, evalTimeout, page.HandleJavaScriptDialog(false)); err != nil {
		return failed(CodeBrowser, "dismiss dialog: %v", err)
	}
	t.mu.Lock()
	t.dialog = nil
	t.mu.Unlock()
	t.settle(ctx)
	return done("Dismissed the browser's %s dialog", d.Type)
}

// Wait waits d and lets the page finish what it started.
func (t *Tab) Wait(ctx context.Context, d time.Duration) Outcome {
	sleep(ctx, d)
	t.settle(ctx)
	return done("Waited %s", d)
}

// Structure identifies the page's address and the controls it shows, for a client running a
// batch of actions: when it changes, the page the agent decided on is gone ("" when the page
// cannot be read, which counts as changed).
func (t *Tab) Structure(ctx context.Context) string {
	if t.dialogOpen() != nil {
		return ""
	}
	var s string
	if err := t.call(ctx, &s, "structure"); err != nil {
		return ""
	}
	return s
}

// Clock is the user's time zone (IANA) and locale (BCP 47) as the browser knows them, which the
// agent's requests carry so that the prompt shows the user's local time; "" when unknown.
func (t *Tab) Clock(ctx context.Context) (zone, locale string) {
	var c struct{ Zone, Locale string }
	if err := t.run(ctx, evalTimeout, chromedp.Evaluate(`({Zone: Intl.DateTimeFormat().resolvedOptions().timeZone || "", Locale: navigator.language || ""})`, &c)); err != nil {
		return "", ""
	}
	return c.Zone, c.Locale
}

// URL is the address of the page the tab shows.
func (t *Tab) URL(ctx context.Context) string {
	var u string
	if err := t.run(ctx, evalTimeout, chromedp.Location(&u)); err != nil {
		return ""
	}
	return u
}
