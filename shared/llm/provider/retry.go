package provider

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/screenagent/backend/shared/httpretry"
)

// classify turns an attempt's error into a failure: an HTTP status (with the provider's error
// code when it sent a well-formed one), or what httpretry makes of errors without one.
func classify(parent context.Context, err error, res *http.Response, timeout time.Duration) *httpretry.Failure {
	if parent.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return httpretry.FromError(parent, err, timeout)
	}
	var status *httpretry.StatusError
	apiErr := (*openai.Error)(nil)
	var f *httpretry.Failure
	switch {
	case res != nil && res.StatusCode >= 400:
		f = httpretry.FromStatus(res.StatusCode, res.Header)
	case errors.As(err, &status):
		f = httpretry.FromStatus(status.StatusCode, status.Header)
	case errors.As(err, &apiErr):
		f = httpretry.FromStatus(apiErr.StatusCode, nil)
	default:
		return httpretry.FromError(parent, err, timeout)
	}
	if errors.As(err, &apiErr) {
		f.Code = safeCode(apiErr.Code, apiErr.Type)
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
