package ratelimit

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/httpapi"
)

// Refuse answers a request the middleware stops: with err nil the limit is reached (429),
// otherwise the counter store failed (503). d carries the limit, the window's end and the
// Retry-After seconds either way.
type Refuse func(w http.ResponseWriter, r *http.Request, d Decision, err error)

const (
	limitedMessage     = "Rate limit exceeded. Please try again later."
	unavailableMessage = "The service is temporarily unavailable. Please try again later."
)

// Middleware limits a route of class to cfg's per-minute limit for each subject, which subject
// derives from the request (a tenant and its tier, say). Every response carries
// X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds); a stopped
// request gets only refuse's answer, and the route does nothing.
//
// When the counter store fails, the request is refused with 503 (fail closed). The routes need
// DynamoDB anyway, so failing open would buy little availability, and it would lift the limits
// exactly when the store is under stress, login's included, where a limit that can be switched
// off by overloading the store is no protection against password guessing.
//
// It panics when cfg has no limit for class: a wiring mistake that must fail at cold start.
func Middleware(l *Limiter, cfg Config, class string, subject func(*http.Request) (string, accounts.Tier), refuse Refuse) func(http.Handler) http.Handler {
	if cfg.Limit(class, "") < 1 {
		panic("ratelimit: no limit configured for class " + strconv.Quote(class))
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			who, tier := subject(r)
			d, err := l.Take(r.Context(), who, class, cfg.Limit(class, tier), time.Minute)
			h := w.Header()
			h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
			h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
			h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
			if err != nil || !d.Allowed {
				refuse(w, r, d, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// byIP keys a request by the caller's address, for routes without a tenant; the tier is empty,
// so the base limit applies.
func byIP(r *http.Request) (string, accounts.Tier) {
	return "IP#" + httpapi.ClientIP(r), ""
}

// TenantSubject is the subject of a tenant's requests; like every tenant key it starts with the tenant.
func TenantSubject(tenantID string) string {
	return "TENANT#" + tenantID
}

// RefuseEnvelope answers in the main API's error envelope: 429 RATE_LIMIT with retryAfter, or
// 503 SERVICE_UNAVAILABLE whose cause goes to the request's log line; both set Retry-After.
func RefuseEnvelope(w http.ResponseWriter, r *http.Request, d Decision, err error) {
	e := &httpapi.Error{Code: httpapi.CodeRateLimit, Message: limitedMessage, RetryAfter: d.RetryAfter}
	if err != nil {
		e = &httpapi.Error{Code: httpapi.CodeServiceUnavailable, Message: unavailableMessage, RetryAfter: d.RetryAfter, Cause: err}
	}
	httpapi.WriteError(w, r, e)
}

// RefuseRunAPI answers in the run API's error body, {"error": code, "message": ...}, with
// Retry-After: 429 RATE_LIMIT, or 503 SERVICE_UNAVAILABLE whose cause goes to the request's log line.
func RefuseRunAPI(w http.ResponseWriter, r *http.Request, d Decision, err error) {
	code, message := httpapi.CodeRateLimit, limitedMessage
	if err != nil {
		code, message = httpapi.CodeServiceUnavailable, unavailableMessage
		httpapi.AddLogAttrs(r.Context(), slog.String("error", err.Error()))
	}
	w.Header().Set("Retry-After", strconv.Itoa(d.RetryAfter))
	httpapi.WriteJSON(w, code.Status(), runAPIError{Error: code, Message: message})
}

type runAPIError struct {
	Error   httpapi.Code `json:"error"`
	Message string       `json:"message"`
}
