// Package replay is the one policy of both APIs for a retry that arrives while the request
// with its Idempotency-Key is still in flight: it waits briefly, looking again and again, and is
// answered with the first request's response once that is stored, instead of a 409 or a second
// LLM call.
package replay

import (
	"context"
	"errors"
	"time"
)

// ErrInFlight is a wait that ended with the first request still in flight.
var ErrInFlight = errors.New("replay: the request with this key is still in flight")

// Defaults of a wait: long enough for a step's LLM call to end, short enough that a client
// retrying a request whose twin hangs gets an answer well before its own timeout.
const (
	DefaultMax  = 8 * time.Second
	DefaultPoll = 150 * time.Millisecond
)

// Wait is how long, and how often, a retry looks for its twin's response.
type Wait struct {
	// Max bounds the wait (DefaultMax when 0); it never runs past the request's deadline less
	// Reserve, the time the request keeps for its own writes.
	Max, Poll, Reserve time.Duration
	Now                func() time.Time
}

// Until calls attempt until it reports done (its error is returned), the wait ends
// (ErrInFlight) or ctx ends (its error). attempt looks for the stored response, or takes what
// the request needs to go on itself (a lease, a claim on the key), and reports done when the
// request can be answered or go on.
func (w Wait) Until(ctx context.Context, attempt func(context.Context) (bool, error)) error {
	now := w.Now
	if now == nil {
		now = time.Now
	}
	max, poll := w.Max, w.Poll
	if max <= 0 {
		max = DefaultMax
	}
	if poll <= 0 {
		poll = DefaultPoll
	}
	stop := now().Add(max)
	if dl, ok := ctx.Deadline(); ok && dl.Add(-w.Reserve).Before(stop) {
		stop = dl.Add(-w.Reserve)
	}
	for {
		done, err := attempt(ctx)
		if done || err != nil {
			return err
		}
		if !now().Before(stop) {
			return ErrInFlight
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
