package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

//go:embed agent.js
var agentJS string

// Timeouts of the page's own work: a navigation, and one call into the page.
const (
	navigateTimeout = 20 * time.Second
	evalTimeout     = 15 * time.Second
	// settleMax bounds the wait for a page to finish loading after an action.
	settleMax = 8 * time.Second
)

// Tab is one tab as the extension sees it: it follows the tab a page opens, as the user's
// attention would.
type Tab struct {
	mu      sync.Mutex
	ctx     context.Context
	cancels []context.CancelFunc
	// opened are page targets opened by the current tab since the last action.
	opened []target.ID
	// dialog is the browser's own alert/confirm/prompt that is open, if any.
	dialog *page.EventJavascriptDialogOpening
	// last is the last capture, shown behind a browser dialog (the page cannot be read then).
	last *Capture
	// nextID is the next element id the tab gives: ids are unique across the tab's pages.
	nextID int
}

func newTab(ctx context.Context, cancel context.CancelFunc) *Tab {
	return &Tab{ctx: ctx, cancels: []context.CancelFunc{cancel}}
}

func (t *Tab) start(ctx context.Context) error {
	// The first Run attaches the tab for its whole life: it must not carry a timeout, whose end
	// would detach it.
	if err := chromedp.Run(t.ctx); err != nil {
		return fmt.Errorf("attach tab: %w", err)
	}
	t.listen(t.ctx)
	return nil
}

// listen watches the current target for the tabs it opens and the dialogs it shows.
func (t *Tab) listen(ctx context.Context) {
	self := chromedp.FromContext(ctx).Target.TargetID
	chromedp.ListenBrowser(ctx, func(ev any) {
		if e, ok := ev.(*target.EventTargetCreated); ok && e.TargetInfo.Type == "page" && e.TargetInfo.OpenerID == self {
			t.mu.Lock()
			t.opened = append(t.opened, e.TargetInfo.TargetID)
			t.mu.Unlock()
		}
	})
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			t.mu.Lock()
			t.dialog = e
			t.mu.Unlock()
		case *page.EventJavascriptDialogClosed:
			t.mu.Lock()
			t.dialog = nil
			t.mu.Unlock()
		}
	})
}

// Close closes the tab and every tab it followed.
func (t *Tab) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.cancels) - 1; i >= 0; i-- {
		t.cancels[i]()
	}
}

func (t *Tab) current() context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ctx
}

// run executes chromedp actions on the current tab within timeout, or ctx, whichever ends first.
func (t *Tab) run(ctx context.Context, timeout time.Duration, acts ...chromedp.Action) error {
	tctx, cancel := context.WithTimeout(t.current(), timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return chromedp.Run(tctx, acts...)
}

// call runs __sa.<fn>(args...) in the page and decodes its result into out.
func (t *Tab) call(ctx context.Context, out any, fn string, args ...any) error {
	parts := make([]string, len(args))
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		parts[i] = string(b)
	}
	expr := agentJS + "\n;window.__sa." + fn + "(" + strings.Join(parts, ",") + ")"
	return t.run(ctx, evalTimeout, chromedp.Evaluate(expr, out))
}

// Navigate opens rawURL in the current tab and waits for it to load.
func (t *Tab) Navigate(ctx context.Context, rawURL string) error {
	resp, err := t.navigate(ctx, rawURL)
	if err != nil {
		return err
	}
	if resp != "" {
		return errors.New(resp)
	}
	return nil
}

// navigate returns a message for an HTTP error status, or an error when the page did not load.
func (t *Tab) navigate(ctx context.Context, rawURL string) (string, error) {
	tctx, cancel := context.WithTimeout(t.current(), navigateTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	var status int64
	r, err := chromedp.RunResponse(tctx, chromedp.Navigate(rawURL))
	if r != nil {
		status = r.Status
	}
	if err != nil {
		return "", fmt.Errorf("navigate to %s: %w", rawURL, err)
	}
	if status >= 400 {
		return fmt.Sprintf("the page answered HTTP %d", status), nil
	}
	return "", nil
}

// settle waits until the page an action may have started loading is loaded, and follows a tab
// the action opened.
func (t *Tab) settle(ctx context.Context) {
	// Long enough for a click's navigation or a new tab to start, so that the wait below sees it.
	sleep(ctx, 150*time.Millisecond)
	t.follow(ctx)
	deadline := time.Now().Add(settleMax)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if t.dialogOpen() != nil {
			return
		}
		var state string
		err := t.run(ctx, 2*time.Second, chromedp.Evaluate("document.readyState", &state))
		if err == nil && state == "complete" {
			break
		}
		sleep(ctx, 100*time.Millisecond)
	}
	// Scripts that run on load get a moment to draw the page.
	sleep(ctx, 50*time.Millisecond)
}

// follow switches to the newest tab the current one opened, if any.
func (t *Tab) follow(ctx context.Context) {
	t.mu.Lock()
	opened := t.opened
	t.opened = nil
	parent := t.ctx
	t.mu.Unlock()
	if len(opened) == 0 {
		return
	}
	nctx, cancel := chromedp.NewContext(parent, chromedp.WithTargetID(opened[len(opened)-1]))
	if err := chromedp.Run(nctx); err != nil {
		cancel()
		return
	}
	t.mu.Lock()
	t.ctx = nctx
	t.cancels = append(t.cancels, cancel)
	t.dialog = nil
	t.mu.Unlock()
	t.listen(nctx)
}

func (t *Tab) dialogOpen() *page.EventJavascriptDialogOpening {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialog
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// Screenshot is a PNG of the tab's viewport.
func (t *Tab) Screenshot(ctx context.Context) ([]byte, error) {
	if t.dialogOpen() != nil {
		return nil, errors.New("screenshot: a browser dialog is open")
	}
	var png []byte
	if err := t.run(ctx, evalTimeout, chromedp.CaptureScreenshot(&png)); err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return png, nil
}
