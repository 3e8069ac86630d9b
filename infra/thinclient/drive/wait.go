package drive

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/screenagent/backend/shared/httpretry"
)

// An extension must treat 429 (the tenant's rate limit) and 503 (a stack starting, a model
// unavailable) with Retry-After as "come back later", not as the end of the task. The waits are
// bounded so a client never hangs on a server that keeps refusing.
const (
	// MaxRetryAfter is the longest single wait the client accepts; a longer Retry-After ends
	// the call with the answer's error.
	MaxRetryAfter = 90 * time.Second
	// MaxWaits is how many answers of one call the client waits out before giving up.
	MaxWaits = 5
)

// Waiter waits out Retry-After: Sleep waits (time.Sleep unless the context ends first, when
// nil), Notify hears one line per wait (os.Stderr when nil).
type Waiter struct {
	Sleep  func(ctx context.Context, d time.Duration) error
	Notify io.Writer
}

// retryAfter is how long to wait before asking again, and whether to: 429 and 503 answers with
// a Retry-After within MaxRetryAfter, at most MaxWaits times per call.
func retryAfter(resp *http.Response, waited int) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	d := httpretry.RetryAfter(resp.Header, time.Now())
	if d <= 0 || d > MaxRetryAfter || waited >= MaxWaits {
		return 0, false
	}
	return d, true
}

func (w Waiter) wait(ctx context.Context, what string, status int, d time.Duration, n int) error {
	out := w.Notify
	if out == nil {
		out = os.Stderr
	}
	fmt.Fprintf(out, "%s: HTTP %d, waiting %s as Retry-After asks (wait %d of at most %d)\n", what, status, d, n, MaxWaits)
	if w.Sleep != nil {
		return w.Sleep(ctx, d)
	}
	return httpretry.Sleep(ctx, d)
}
