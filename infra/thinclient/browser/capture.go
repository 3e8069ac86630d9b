package browser

import (
	"context"
	"fmt"
	"html"

	"github.com/screenagent/backend/shared/runs"
)

// Capture is the page as the agent sees it.
type Capture struct {
	URL   string
	Title string
	// DOM is the interact API's `dom`: simplified HTML of what is visible, where each element a
	// user can act on carries a numeric id. See docs/api.md, "The dom format".
	DOM string
	// Snapshot is the run API's PageSnapshot: the viewport's text and its interactive elements,
	// identified by their data-agent-id.
	Snapshot runs.Snapshot
}

type wireCapture struct {
	Next     int           `json:"next"`
	URL      string        `json:"url"`
	Title    string        `json:"title"`
	DOM      string        `json:"dom"`
	Snapshot runs.Snapshot `json:"snapshot"`
}

// Capture marks the page's actionable elements (keeping the ids they already have) and reads
// the page. While the browser's own dialog is open the page cannot be read: the last capture is
// returned with the dialog in front of it, as the user would see it.
func (t *Tab) Capture(ctx context.Context) (Capture, error) {
	if d := t.dialogOpen(); d != nil {
		return t.behindDialog(d.Type.String(), d.Message), nil
	}
	t.mu.Lock()
	first := t.nextID
	t.mu.Unlock()
	var w wireCapture
	if err := t.call(ctx, &w, "capture", first); err != nil {
		return Capture{}, fmt.Errorf("capture page: %w", err)
	}
	c := Capture{URL: w.URL, Title: w.Title, DOM: w.DOM, Snapshot: w.Snapshot}
	t.mu.Lock()
	t.last = &c
	t.nextID = max(t.nextID, w.Next)
	t.mu.Unlock()
	return c, nil
}

func (t *Tab) behindDialog(kind, message string) Capture {
	t.mu.Lock()
	last := t.last
	t.mu.Unlock()
	var c Capture
	if last != nil {
		c = *last
	}
	text := fmt.Sprintf("The browser shows a %s dialog: %s", kind, message)
	c.DOM = `<dialog role="alertdialog" aria-modal="true">` + html.EscapeString(text) + `</dialog>` + c.DOM
	c.Snapshot.VisibleText = text + "\n" + c.Snapshot.VisibleText
	c.Snapshot.Elements = nil
	if n := len([]rune(c.Snapshot.VisibleText)); n > runs.MaxVisibleText {
		c.Snapshot.VisibleText = string([]rune(c.Snapshot.VisibleText)[:runs.MaxVisibleText-1]) + "…"
	}
	return c
}

// IDOf is the data-agent-id of the interact API's element id n.
func IDOf(n int) string { return fmt.Sprintf("agent-%d", n) }
