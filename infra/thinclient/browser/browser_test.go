package browser

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
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
