// Package auth issues and checks access tokens: invite-only login with brute-force throttling,
// token lookup for every protected request, and logout. Tenants come only from the token.
package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/screenagent/backend/shared/accounts"
)

// Store is what the service needs of the accounts store.
type Store interface {
	GetUser(ctx context.Context, id string) (accounts.User, error)
	GetUserByEmail(ctx context.Context, normalizedEmail string) (accounts.User, error)
	GetTenant(ctx context.Context, id string) (accounts.Tenant, error)
	ListMemberships(ctx context.Context, userID string) ([]accounts.Membership, error)
	SetPasswordHash(ctx context.Context, userID, hash string) error
	PutToken(ctx context.Context, t accounts.TokenRecord) error
	GetToken(ctx context.Context, hash string) (accounts.TokenRecord, error)
	DeleteToken(ctx context.Context, hash string) error
}

// FailureCounter counts failed logins per subject in fixed windows (the rate-limit counters).
type FailureCounter interface {
	Failures(ctx context.Context, subject string, window time.Duration) (int, time.Time, error)
	AddFailure(ctx context.Context, subject string, window time.Duration) (int, error)
	ClearFailures(ctx context.Context, subject string, window time.Duration) error
}

// Throttle bounds failed logins in a window. Three counters keep one attacker from locking a user
// out: per (account, IP) a few failures stop guessing from one address; per IP a larger number
// stops spraying many accounts; per account a much larger number stops distributed guessing. A
// single attacking address thus never blocks the real user's address, and every block lifts by
// itself when its window ends.
type Throttle struct {
	Window       time.Duration
	PerAccountIP int
	PerIP        int
	PerAccount   int
}

// DefaultThrottle is 5 failures per account and address, 20 per address, 50 per account, per 15 minutes.
var DefaultThrottle = Throttle{Window: 15 * time.Minute, PerAccountIP: 5, PerIP: 20, PerAccount: 50}

// Errors of the service, mapped to the contract at the HTTP edge.
var (
	ErrInvalidCredentials = errors.New("auth: invalid email or password")
	ErrAccountDisabled    = errors.New("auth: account disabled")
	ErrUnauthorized       = errors.New("auth: missing, invalid or expired token")
	ErrNotAMember         = accounts.ErrNotAMember
	// ErrThrottleUnavailable means the failed-login counters could not be read or written: login
	// refuses rather than go on unthrottled.
	ErrThrottleUnavailable = errors.New("auth: login throttle unavailable")
)

// ThrottleRetryAfter is the Retry-After, in seconds, of a login refused because the throttle's
// store failed: long enough for a transient store error to pass.
const ThrottleRetryAfter = 5

// ThrottledError refuses a login attempt until RetryAfter seconds have passed.
type ThrottledError struct{ RetryAfter int }

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("auth: too many failed logins, retry after %ds", e.RetryAfter)
}

// DefaultTokenTTL is the absolute lifetime of an access token.
const DefaultTokenTTL = 7 * 24 * time.Hour

// Service is the authentication service.
type Service struct {
	Store    Store
	Failures FailureCounter
	Throttle Throttle
	TokenTTL time.Duration
	Now      func() time.Time
	Logger   *slog.Logger
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Login is what a successful login returns. The token is shown once and never stored.
type Login struct {
	AccessToken string
	ExpiresAt   time.Time
	User        accounts.User
	Tenant      accounts.Tenant
}

// LoginRequest is a login attempt. TenantID optionally picks one of the user's organizations.
type LoginRequest struct {
	Email    string
	Password string
	TenantID string
	ClientIP string
}

// Login checks the credentials and issues a new token. An unknown email and a wrong password give
// the same error after the same work (a dummy hash is verified), and a disabled account is only
// revealed to someone who knows its password.
func (s *Service) Login(ctx context.Context, req LoginRequest) (Login, error) {
	email, err := accounts.NormalizeEmail(req.Email)
	if err != nil {
		return Login{}, err
	}
	if req.Password == "" {
		return Login{}, &accounts.ValidationError{Field: "password", Reason: "is required"}
	}
	subjects := s.subjects(email, req.ClientIP)
	if err := s.checkThrottle(ctx, subjects); err != nil {
		return Login{}, err
	}

	user, err := s.Store.GetUserByEmail(ctx, email)
	switch {
	case errors.Is(err, accounts.ErrNotFound):
		accounts.VerifyDummy(req.Password)
		return Login{}, s.fail(ctx, subjects)
	case err != nil:
		return Login{}, fmt.Errorf("login: %w", err)
	}
	ok, err := accounts.VerifyPassword(user.PasswordHash, req.Password)
	if err != nil {
		return Login{}, fmt.Errorf("login: user %s: %w", user.ID, err)
	}
	if !ok {
		return Login{}, s.fail(ctx, subjects)
	}
	if user.Disabled {
		return Login{}, ErrAccountDisabled
	}
	if err := s.Failures.ClearFailures(ctx, subjects[0].key, s.Throttle.Window); err != nil {
		return Login{}, fmt.Errorf("login: clear failures: %w: %w", ErrThrottleUnavailable, err)
	}
	if accounts.NeedsRehash(user.PasswordHash) {
		s.rehash(ctx, user.ID, req.Password)
	}

	memberships, err := s.Store.ListMemberships(ctx, user.ID)
	if err != nil {
		return Login{}, fmt.Errorf("login: memberships: %w", err)
	}
	tenantID, err := accounts.ChooseTenant(user.ID, memberships, req.TenantID)
	if err != nil {
		return Login{}, err
	}
	tenant, err := s.Store.GetTenant(ctx, tenantID)
	if err != nil {
		return Login{}, fmt.Errorf("login: tenant %s: %w", tenantID, err)
	}
	token, err := accounts.NewToken()
	if err != nil {
		return Login{}, err
	}
	now := s.now().UTC()
	ttl := s.TokenTTL
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	rec := accounts.TokenRecord{Hash: accounts.HashToken(token), UserID: user.ID, TenantID: tenant.ID, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := s.Store.PutToken(ctx, rec); err != nil {
		return Login{}, fmt.Errorf("login: store token: %w", err)
	}
	return Login{AccessToken: token, ExpiresAt: rec.ExpiresAt, User: user, Tenant: tenant}, nil
}

// rehash upgrades a hash made with older parameters; failing to is logged, not fatal.
func (s *Service) rehash(ctx context.Context, userID, password string) {
	hash, err := accounts.HashPassword(password)
	if err == nil {
		err = s.Store.SetPasswordHash(ctx, userID, hash)
	}
	if err != nil && s.Logger != nil {
		s.Logger.WarnContext(ctx, "password rehash failed", "userId", userID, "error", err.Error())
	}
}

type subject struct {
	key   string
	limit int
}

// subjects are the throttle counters of an attempt, the (account, IP) one first. The email is
// hashed so counter keys carry no personal data.
func (s *Service) subjects(email, ip string) []subject {
	sum := sha256.Sum256([]byte(email))
	acct := hex.EncodeToString(sum[:12])
	return []subject{
		{"login-fail#acct-ip#" + acct + "#" + ip, s.Throttle.PerAccountIP},
		{"login-fail#ip#" + ip, s.Throttle.PerIP},
		{"login-fail#acct#" + acct, s.Throttle.PerAccount},
	}
}

// checkThrottle refuses the attempt when any counter is at its limit. A counter store failure
// refuses too: brute-force protection must never switch itself off.
func (s *Service) checkThrottle(ctx context.Context, subjects []subject) error {
	now := s.now()
	for _, sub := range subjects {
		n, reset, err := s.Failures.Failures(ctx, sub.key, s.Throttle.Window)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrThrottleUnavailable, err)
		}
		if n >= sub.limit {
			return &ThrottledError{RetryAfter: retryAfter(now, reset)}
		}
	}
	return nil
}

// fail counts a failed attempt on every counter and returns the invalid-credentials error.
func (s *Service) fail(ctx context.Context, subjects []subject) error {
	for _, sub := range subjects {
		if _, err := s.Failures.AddFailure(ctx, sub.key, s.Throttle.Window); err != nil {
			return fmt.Errorf("%w: %w", ErrThrottleUnavailable, err)
		}
	}
	return ErrInvalidCredentials
}

func retryAfter(now, reset time.Time) int {
	secs := int(reset.Sub(now).Round(time.Second) / time.Second)
	if secs < 1 {
		return 1
	}
	return secs
}

// Authenticate resolves an Authorization header to the identity of its token. Every failure is
// ErrUnauthorized wrapped with the reason (for the log); expiry is checked here, never left to TTL.
func (s *Service) Authenticate(ctx context.Context, header string) (accounts.Identity, string, error) {
	token, err := accounts.ParseBearer(header)
	if err != nil {
		return accounts.Identity{}, "", fmt.Errorf("%w: %v", ErrUnauthorized, err)
	}
	hash := accounts.HashToken(token)
	rec, err := s.Store.GetToken(ctx, hash)
	if errors.Is(err, accounts.ErrNotFound) {
		return accounts.Identity{}, "", fmt.Errorf("%w: unknown or revoked token", ErrUnauthorized)
	}
	if err != nil {
		return accounts.Identity{}, "", fmt.Errorf("authenticate: %w", err)
	}
	if rec.Expired(s.now()) {
		return accounts.Identity{}, "", fmt.Errorf("%w: token expired", ErrUnauthorized)
	}
	user, err := s.Store.GetUser(ctx, rec.UserID)
	if errors.Is(err, accounts.ErrNotFound) {
		return accounts.Identity{}, "", fmt.Errorf("%w: user gone", ErrUnauthorized)
	}
	if err != nil {
		return accounts.Identity{}, "", fmt.Errorf("authenticate: %w", err)
	}
	if user.Disabled {
		return accounts.Identity{}, "", fmt.Errorf("%w: user disabled", ErrUnauthorized)
	}
	tenant, err := s.Store.GetTenant(ctx, rec.TenantID)
	if errors.Is(err, accounts.ErrNotFound) {
		return accounts.Identity{}, "", fmt.Errorf("%w: tenant gone", ErrUnauthorized)
	}
	if err != nil {
		return accounts.Identity{}, "", fmt.Errorf("authenticate: %w", err)
	}
	return accounts.Identity{
		UserID: user.ID, TenantID: tenant.ID, TenantName: tenant.Name, Tier: tenant.Tier,
		Email: user.Email, Name: user.Name,
	}, hash, nil
}

// Logout revokes the token with the given hash; the next request with it gets 401.
func (s *Service) Logout(ctx context.Context, tokenHash string) error {
	if err := s.Store.DeleteToken(ctx, tokenHash); err != nil {
		return fmt.Errorf("logout: %w", err)
	}
	return nil
}
