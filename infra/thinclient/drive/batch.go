package drive

import (
	"context"

	"github.com/screenagent/backend/infra/thinclient/browser"
	"github.com/screenagent/backend/shared/actionbatch"
)

// batchOutcome is what became of one action of a batch.
type batchOutcome struct {
	browser.Outcome
	// Skipped: not run, because an earlier action failed or the page changed.
	Skipped bool
}

// runBatch runs the n actions of a batch in order, as the capability asks: it stops at the
// first failure, and when the page navigates or its structure changes (the actions after that
// were chosen for a page that is gone). Every action gets an outcome; the ones not run are
// skipped.
func runBatch(ctx context.Context, tab *browser.Tab, n int, run func(ctx context.Context, i int) browser.Outcome) []batchOutcome {
	out := make([]batchOutcome, n)
	before := tab.Structure(ctx)
	stop := n
	for i := range n {
		out[i].Outcome = run(ctx, i)
		if !out[i].OK || i+1 < n && tab.Structure(ctx) != before {
			stop = i + 1
			break
		}
	}
	for i := stop; i < n; i++ {
		out[i] = batchOutcome{Outcome: browser.Outcome{Message: "not run: an earlier action failed or the page changed"}, Skipped: true}
	}
	return out
}

// summary is a batch's outcome for the transcript: whether every action that ran succeeded, and
// what happened to each.
func summary(outs []batchOutcome) (ok bool, text string) {
	ok = true
	for i, o := range outs {
		if i > 0 {
			text += "; "
		}
		text += o.Message
		if !o.OK && !o.Skipped {
			ok = false
		}
	}
	return ok, text
}

// capabilities are what the client declares: actionBatch when the task runs batches.
func (t Task) capabilities() []string {
	if t.Batch {
		return []string{actionbatch.Capability}
	}
	return nil
}
