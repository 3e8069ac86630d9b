// Package httpretry holds what the clients of outside HTTP services (the LLM, web search) agree
// on when an attempt fails: which failures another attempt may cure, how long the server asked
// us to wait, and the jitter that keeps clients failed together from retrying together.
package httpretry

import (
	"errors"
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
