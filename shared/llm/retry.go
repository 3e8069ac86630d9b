package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/screenagent/backend/shared/httpretry"
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
		if httpretry.Transient(err) {
			return &failure{err: err, retry: true}
		}
		return &failure{err: err}
	}
	f := &failure{
		err:        &statusError{StatusCode: status.StatusCode},
		status:     status.StatusCode,
		retry:      httpretry.RetryableStatus(status.StatusCode),
		retryAfter: httpretry.RetryAfter(status.Header, time.Now()),
	}
	if errors.As(err, &apiErr) {
		f.code = safeCode(apiErr.Code, apiErr.Type)
	}
	return f
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
