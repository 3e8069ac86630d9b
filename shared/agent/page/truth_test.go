package page

import (
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
)

// TestChangeLegendTellsTheTruth: the legend and marks describe what changed by content, so a
// page with a new URL, new text, a typed value or a chosen option is never "unchanged", and a
// list seen before is not "new" because its ids were renumbered.
func TestChangeLegendTellsTheTruth(t *testing.T) {
	tests := []struct {
		name       string
		prev, cur  string
		urlChanged bool
		wantLegend string
		wantLine   string // a line of the rendering that must be there, marks included
	}{
		{
			name:       "only a textarea's value changed: changed, not new",
			prev:       `<form><textarea id="4" name="notes">Old notes</textarea><button id="5">Save</button></form>`,
			cur:        `<form><textarea id="4" name="notes">Meeting at noon</textarea><button id="5">Save</button></form>`,
			wantLegend: "(since the previous step: ~ marks the element whose value or state changed)",
			wantLine:   `~[4] textarea`,
		},
		{
			name:       "a select now shows another option",
			prev:       `<label>City <select id="10" name="city"><option>Paris</option><option>Lyon</option></select></label><button id="11">Next</button>`,
			cur:        `<label>City <select id="10" name="city"><option>Paris</option><option selected>Lyon</option></select></label><button id="11">Next</button>`,
			wantLegend: "(since the previous step: ~ marks the element whose value or state changed)",
			wantLine:   `~[10] select`,
		},
		{
			name:       "a box was ticked",
			prev:       `<label><input id="7" type="checkbox" name="terms"> I agree</label><button id="8">Sign up</button>`,
			cur:        `<label><input id="7" type="checkbox" name="terms" checked> I agree</label><button id="8">Sign up</button>`,
			wantLegend: "(since the previous step: ~ marks the element whose value or state changed)",
			wantLine:   `~[7] input`,
		},
		{
			name:       "the form came back with an error alert and the same elements",
			prev:       `<form><input id="1" name="zip"><button id="2">Continue</button></form>`,
			cur:        `<form><div role="alert">ZIP code must be 5 digits</div><input id="1" name="zip"><button id="2">Continue</button></form>`,
			wantLegend: "(since the previous step: 1 new line of text)",
		},
		{
			name:       "a thank-you page at a new URL keeps the site's links",
			prev:       `<nav><a id="1" href="/">Home</a></nav><h1>Sign up</h1>`,
			cur:        `<nav><a id="1" href="/">Home</a></nav><h1>Thank you for signing up</h1>`,
			urlChanged: true,
			wantLegend: "(since the previous step: new URL; 1 new line of text)",
		},
		{
			name:       "a loaded list under a heading that stayed: every element is new, not everything",
			prev:       `<h1>Book an appointment</h1><p>Loading available times…</p>`,
			cur:        `<h1>Book an appointment</h1><button id="1">Book 09:00</button><button id="2">Book 10:00</button>`,
			wantLegend: "(every element on this page is new since the previous step)",
		},
		{
			name:       "the same URL after a reload with renumbered ids",
			prev:       `<ul><li>Red shoes <a id="3" href="/r">View</a></li><li>Blue shoes <a id="4" href="/b">View</a></li></ul>`,
			cur:        `<ul><li>Red shoes <a id="31" href="/r">View</a></li><li>Blue shoes <a id="32" href="/b">View</a></li></ul>`,
			wantLegend: "(unchanged since the previous step)",
		},
		{
			name:       "a dialog closed: elements gone",
			prev:       `<div role="dialog" aria-modal="true">Delete draft? <button id="8">Delete</button></div><button id="9">New draft</button>`,
			cur:        `<button id="9">New draft</button>`,
			wantLegend: "(since the previous step: 1 element gone)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prev := pagemodel.Parse(tc.prev)
			for _, opts := range []Options{{Previous: prev}, {PreviousDigest: prev.Digest()}} {
				opts.URLChanged = tc.urlChanged
				r := Render(pagemodel.Parse(tc.cur), opts)
				if !strings.Contains(r.Text, tc.wantLegend+"\n") {
					t.Errorf("got:\n%s\nwant the legend %q", r.Text, tc.wantLegend)
				}
				if tc.wantLine != "" && !strings.Contains(r.Text, tc.wantLine) {
					t.Errorf("got:\n%s\nwant %q", r.Text, tc.wantLine)
				}
			}
		})
	}
}
