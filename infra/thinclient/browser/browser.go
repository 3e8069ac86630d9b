// Package browser drives a headless Chromium the way the Screen Agent extension drives the user's
// browser: it marks the elements a user can act on, builds the page the agent sees (the interact
// API's `dom` string and the run API's PageSnapshot), carries out the agent's actions with real
// input events, and reports honestly what happened.
package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Viewport size of every tab, in CSS pixels: a common laptop screen.
const (
	ViewportWidth  = 1280
	ViewportHeight = 800
)

// Options configure Launch.
type Options struct {
	// ExecPath is the Chromium binary; empty means $CHROMIUM_PATH, else `chromium` on PATH.
	ExecPath string
	// HostResolverRules is Chromium's --host-resolver-rules, e.g. "MAP *.test 127.0.0.1", which
	// lets local sites answer under their own host names.
	HostResolverRules string
	// Log receives Chromium's own output; nil discards it.
	Log io.Writer
}

// Browser is a running headless Chromium with its own fresh profile.
type Browser struct {
	ctx         context.Context // the browser's first tab, which keeps the process alive
	cancel      context.CancelFunc
	cancelAlloc context.CancelFunc
	profile     string
}

// ErrNoChromium means the Chromium binary is missing.
var ErrNoChromium = errors.New("chromium is not installed: run infra/eval/install-chromium.sh (apt-get install chromium) or set CHROMIUM_PATH")

// ExecPath is the Chromium binary Launch uses for o.
func (o Options) execPath() (string, error) {
	p := cmp.Or(o.ExecPath, os.Getenv("CHROMIUM_PATH"), "chromium")
	path, err := exec.LookPath(p)
	if err != nil {
		return "", fmt.Errorf("%w (%s)", ErrNoChromium, p)
	}
	return path, nil
}

// Launch starts Chromium headless, without a sandbox (this runs as root in containers), GPU,
// QUIC, first-run UI or any background traffic, on a fresh user-data directory that Close removes.
func Launch(ctx context.Context, o Options) (*Browser, error) {
	path, err := o.execPath()
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "thinclient-chromium-")
	if err != nil {
		return nil, fmt.Errorf("chromium profile: %w", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(ViewportWidth, ViewportHeight),
		chromedp.CombinedOutput(cmp.Or[io.Writer](o.Log, io.Discard)),
	}
	if o.HostResolverRules != "" {
		opts = append(opts, chromedp.Flag("host-resolver-rules", o.HostResolverRules))
	}
	// The allocator and the browser live until Close, not until the caller's ctx ends.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.WithoutCancel(ctx), opts...)
	bctx, cancel := chromedp.NewContext(allocCtx)
	b := &Browser{ctx: bctx, cancel: cancel, cancelAlloc: cancelAlloc, profile: profile}
	start := make(chan error, 1)
	go func() { start <- chromedp.Run(bctx) }()
	select {
	case err = <-start:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	return b, nil
}

// Close stops Chromium and removes its profile.
func (b *Browser) Close() error {
	b.cancel()
	b.cancelAlloc()
	return os.RemoveAll(b.profile)
}

// NewTab opens a tab in a new browser context (its own cookies and storage, like a fresh
// incognito window), so tasks never see each other's logins or consents. Close the tab when done.
func (b *Browser) NewTab(ctx context.Context) (*Tab, error) {
	c := chromedp.FromContext(b.ctx)
	exec := cdp.WithExecutor(ctx, c.Browser)
	bcID, err := target.CreateBrowserContext().WithDisposeOnDetach(true).Do(exec)
	if err != nil {
		return nil, fmt.Errorf("new browser context: %w", err)
	}
	// A new context has no window yet; headless Chromium refuses a tab without one.
	tid, err := target.CreateTarget("about:blank").WithBrowserContextID(bcID).WithNewWindow(true).Do(exec)
	if err != nil {
		_ = target.DisposeBrowserContext(bcID).Do(exec)
		return nil, fmt.Errorf("new tab: %w", err)
	}
	tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(tid))
	dispose := func() {
		cancel()
		dctx, done := context.WithTimeout(context.WithoutCancel(b.ctx), 5*time.Second)
		defer done()
		_ = target.DisposeBrowserContext(bcID).Do(cdp.WithExecutor(dctx, c.Browser))
	}
	t := newTab(tctx, dispose)
	if err := t.start(ctx); err != nil {
		dispose()
		return nil, err
	}
	return t, nil
}
