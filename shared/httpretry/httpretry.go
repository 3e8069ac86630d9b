// Package httpretry holds what the clients of outside HTTP services (the LLM, web search) agree
// on when an attempt fails: which failures another attempt may cure, how long the server asked
// us to wait, and the jitter that keeps clients failed together from retrying together.
package httpretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RetryableStatus reports the statuses another attempt may cure: request timeout, rate limiting
// and server errors.
func RetryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// Transient reports connection-level failures: refused, reset, or a response cut short.
func Transient(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	return errors.As(err, &netErr) || errors.As(err, &urlErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// RetryAfter reads how long the server asked us to wait: OpenAI's retry-after-ms first, then
// Retry-After in seconds or as an HTTP date. 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return clampWait(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return clampWait(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// clampWait converts a parsed wait, rejecting negatives and NaN, and saturating huge values
// (which end the retries anyway) instead of overflowing.
func clampWait(ns float64) time.Duration {
	if math.IsNaN(ns) || ns <= 0 {
		return 0
	}
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// Jitter spreads d over [d/2, d], so clients failed together do not retry together.
func Jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// Failure is a failed attempt: a cause safe to show (no credentials, no bodies), and whether
// another attempt may succeed.
type Failure struct {
	Err error
	// Status is the HTTP status received, 0 when no response came.
	Status int
	// Code is the service's own error code, when it sent a well-formed one.
	Code       string
	Retry      bool
	RetryAfter time.Duration
}

// FromStatus is the failure of an HTTP error status; it keeps the status and the server's
// Retry-After, never the body.
func FromStatus(code int, h http.Header) *Failure {
	return &Failure{
		Err:        &StatusError{StatusCode: code},
		Status:     code,
		Retry:      RetryableStatus(code),
		RetryAfter: RetryAfter(h, time.Now()),
	}
}

// FromError classifies an attempt's error that came without an HTTP status. parent is the
// caller's context: when it is done the call is abandoned, while an attempt that ran out of its
// own timeout, or lost its connection, may be retried.
func FromError(parent context.Context, err error, timeout time.Duration) *Failure {
	switch {
	case parent.Err() != nil:
		return &Failure{Err: fmt.Errorf("call abandoned: %w", parent.Err())}
	case errors.Is(err, context.DeadlineExceeded):
		return &Failure{Err: fmt.Errorf("no reply within %s: %w", timeout.Round(time.Millisecond), context.DeadlineExceeded), Retry: true}
	case Transient(err):
		return &Failure{Err: err, Retry: true}
	}
	return &Failure{Err: err}
}

// StatusError is an HTTP error status from a service; it keeps the headers (for Retry-After)
// and never the body.
type StatusError struct {
	StatusCode int
	Header     http.Header
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("status %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// Policy bounds the attempts of one call in number and in time.
type Policy struct {
	MaxAttempts int
	// AttemptTimeout bounds each attempt; attempts also end Margin before the context's
	// deadline, which leaves the caller time to write its state.
	AttemptTimeout time.Duration
	Margin         time.Duration
	// MinAttempt is the least time worth starting an attempt with.
	MinAttempt time.Duration
	// Backoff is the base delay before the first retry; it doubles for each next one, with
	// jitter, unless the server asked for longer. A server asking for more than MaxRetryAfter
	// ends the retries.
	Backoff       time.Duration
	MaxRetryAfter time.Duration
	// Sleep waits between attempts (tests replace it); nil waits on a timer.
	Sleep func(context.Context, time.Duration) error
}

// Do calls attempt until it succeeds (returns nil), fails for good, or the attempts or the time
// run out; no attempt starts, and no wait is made, that could not leave MinAttempt before the
// deadline. It returns the number of attempts made and, unless one succeeded, the last failure;
// when the deadline left no room for any attempt, that failure wraps context.DeadlineExceeded.
func (p Policy) Do(ctx context.Context, attempt func(ctx context.Context, timeout time.Duration) *Failure) (attempts int, last *Failure) {
	deadline, bounded := ctx.Deadline()
	deadline = deadline.Add(-p.Margin)
	sleep := p.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	for attempts < p.MaxAttempts {
		timeout := p.AttemptTimeout
		if bounded {
			left := time.Until(deadline)
			if left < p.MinAttempt {
				break
			}
			timeout = min(timeout, left)
		}
		attempts++
		f := attempt(ctx, timeout)
		if f == nil {
			return attempts, nil
		}
		last = f
		if !f.Retry || attempts == p.MaxAttempts || f.RetryAfter > p.MaxRetryAfter {
			return attempts, last
		}
		wait := max(Jitter(p.Backoff<<(attempts-1)), f.RetryAfter)
		if bounded && time.Until(deadline)-wait < p.MinAttempt {
			return attempts, last
		}
		if err := sleep(ctx, wait); err != nil {
			return attempts, &Failure{Err: fmt.Errorf("call abandoned: %w", err)}
		}
	}
	if last == nil {
		last = &Failure{Err: fmt.Errorf("no time left before the deadline: %w", context.DeadlineExceeded)}
	}
	return attempts, last
}

// Sleep waits d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
