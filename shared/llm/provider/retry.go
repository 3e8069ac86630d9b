package provider

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
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
)

// failure is a failed attempt: a cause safe to show (no credentials, no bodies), and whether
// another attempt may succeed.
type failure struct {
	err        error
	status     int
	code       string
	retry      bool
	retryAfter time.Duration
}

// statusError is an HTTP error status from an LLM endpoint or its token service; it keeps the
// headers (for Retry-After) and never the body.
type statusError struct {
	StatusCode int
	Header     http.Header
}

func (e *statusError) Error() string {
	return fmt.Sprintf("status %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// classify turns an attempt's error into a failure. parent is the caller's context: when it is
// done the call is abandoned, while an attempt that ran out of its own timeout may be retried.
func classify(parent context.Context, err error, res *http.Response, timeout time.Duration) *failure {
	if perr := parent.Err(); perr != nil {
		return &failure{err: fmt.Errorf("call abandoned: %w", perr)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &failure{err: fmt.Errorf("no reply within %s: %w", timeout.Round(time.Millisecond), context.DeadlineExceeded), retry: true}
	}
	var status *statusError
	apiErr := (*openai.Error)(nil)
	switch {
	case res != nil && res.StatusCode >= 400:
		status = &statusError{StatusCode: res.StatusCode, Header: res.Header}
	case errors.As(err, &status):
	case errors.As(err, &apiErr):
		status = &statusError{StatusCode: apiErr.StatusCode}
	default:
		if transient(err) {
			return &failure{err: err, retry: true}
		}
		return &failure{err: err}
	}
	f := &failure{
		err:        &statusError{StatusCode: status.StatusCode},
		status:     status.StatusCode,
		retry:      retryableStatus(status.StatusCode),
		retryAfter: retryAfter(status.Header, time.Now()),
	}
	if errors.As(err, &apiErr) {
		f.code = safeCode(apiErr.Code, apiErr.Type)
	}
	return f
}

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// transient reports connection-level failures: refused, reset, or a response cut short.
func transient(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	return errors.As(err, &netErr) || errors.As(err, &urlErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

var codePattern = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,64}$`)

// safeCode returns the first well-formed error code: providers put free text (which may quote
// a masked key) in messages, but short identifiers in code and type.
func safeCode(candidates ...string) string {
	for _, c := range candidates {
		if codePattern.MatchString(c) {
			return c
		}
	}
	return ""
}

// retryAfter reads how long the server asked us to wait: OpenAI's retry-after-ms first, then
// Retry-After in seconds or as an HTTP date. 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
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

// jitter spreads d over [d/2, d], so clients failed together do not retry together.
func jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}
