package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/httpapi"
)

type ctxKey struct{}

type principal struct {
	identity  accounts.Identity
	tokenHash string
}

// IdentityFrom returns the verified identity the middleware put in the context.
func IdentityFrom(ctx context.Context) (accounts.Identity, bool) {
	p, ok := ctx.Value(ctxKey{}).(principal)
	return p.identity, ok
}

// Require returns the verified identity of the request, or the UNAUTHORIZED error when no
// middleware verified one (a handler wired without it).
func Require(ctx context.Context) (accounts.Identity, error) {
	id, ok := IdentityFrom(ctx)
	if !ok {
		return accounts.Identity{}, HTTPError(ErrUnauthorized)
	}
	return id, nil
}

// Handler serves authenticated requests: h gets the identity the middleware verified; a request
// without one is answered with Require's error, as h's errors are, by httpapi.HandlerFunc.
func Handler(h func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := Require(r.Context())
		if err != nil {
			return err
		}
		return h(w, r, id)
	}
}

// TokenHashFrom returns the hash of the request's verified token (for logout).
func TokenHashFrom(ctx context.Context) string {
	p, _ := ctx.Value(ctxKey{}).(principal)
	return p.tokenHash
}

// WithIdentity returns ctx carrying identity, as the middleware does (for handler tests).
func WithIdentity(ctx context.Context, identity accounts.Identity, tokenHash string) context.Context {
	return context.WithValue(ctx, ctxKey{}, principal{identity: identity, tokenHash: tokenHash})
}

// Middleware admits only requests with a valid bearer token, putting the identity in the context
// and the tenant and user on the request's log line. writeErr answers the rest: the main API and
// the run API answer in different error formats.
func (s *Service) Middleware(writeErr func(w http.ResponseWriter, r *http.Request, err error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			identity, hash, err := s.Authenticate(r.Context(), r.Header.Get("Authorization"))
			if err != nil {
				writeErr(w, r, err)
				return
			}
			httpapi.AddLogAttrs(r.Context(), slog.String("tenantId", identity.TenantID), slog.String("userId", identity.UserID))
			next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), identity, hash)))
		})
	}
}

// HTTPError maps the service's errors to the main API's contract.
func HTTPError(err error) error {
	var throttled *ThrottledError
	switch {
	case errors.Is(err, ErrUnauthorized):
		return httpapi.Wrap(httpapi.CodeUnauthorized, "Authentication required: the access token is missing, invalid or expired.", err)
	case errors.Is(err, ErrInvalidCredentials):
		return httpapi.NewError(httpapi.CodeInvalidCredentials, "Invalid email or password.")
	case errors.Is(err, ErrAccountDisabled):
		return httpapi.NewError(httpapi.CodeAccountDisabled, "This account is disabled.")
	case errors.Is(err, ErrNotAMember):
		return httpapi.NewError(httpapi.CodeForbidden, "You are not a member of that organization.")
	case errors.As(err, &throttled):
		return &httpapi.Error{Code: httpapi.CodeRateLimit, Message: "Too many failed login attempts. Please try again later.", RetryAfter: throttled.RetryAfter}
	case errors.Is(err, ErrThrottleUnavailable):
		// Fail closed like every limited route (ratelimit.Middleware): 503, never an open door.
		return &httpapi.Error{Code: httpapi.CodeServiceUnavailable, Message: "The service is temporarily unavailable. Please try again later.",
			RetryAfter: ThrottleRetryAfter, Cause: err}
	}
	return err
}

// WriteError writes err in the main API's envelope after HTTPError.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	httpapi.WriteError(w, r, HTTPError(err))
}
