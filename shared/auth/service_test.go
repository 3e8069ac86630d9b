package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/fakeclock"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/ratelimit"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

type fixture struct {
	svc   *Service
	store *accountsdb.Store
	clock *fakeclock.Clock
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	db := dynamotest.New(t)
	// Real time: DynamoDB Local runs TTL, so items must not look expired to it.
	c := fakeclock.New(time.Now().UTC().Truncate(time.Second))
	store := accountsdb.New(db.Client, db.Tables["AccountsTable"])
	store.Now = c.Now
	limiter := ratelimit.New(db.Client, db.Tables["RateLimitsTable"])
	limiter.Now = c.Now
	return fixture{
		svc:   &Service{Store: store, Failures: limiter, Throttle: DefaultThrottle, TokenTTL: time.Hour, Now: c.Now},
		store: store,
		clock: c,
	}
}

func (f fixture) user(t *testing.T, email, password string) accounts.User {
	t.Helper()
	hash, err := accounts.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	norm, err := accounts.NormalizeEmail(email)
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.store.CreateUser(context.Background(), norm, "Ada", hash)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

const pw = "correct horse battery"

func TestLoginAuthenticateLogout(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "ada@example.com", pw)

	login, err := f.svc.Login(ctx, LoginRequest{Email: "  ADA@Example.com ", Password: pw, ClientIP: "192.0.2.1"})
	if err != nil {
		t.Fatalf("Login() error = %v", err)
	}
	if login.User.ID != u.ID || login.Tenant.ID != u.ID || login.Tenant.Kind != accounts.KindPersonal {
		t.Errorf("login user/tenant = %s/%s (%s), want personal tenant %s", login.User.ID, login.Tenant.ID, login.Tenant.Kind, u.ID)
	}
	if want := f.clock.Now().Add(time.Hour); !login.ExpiresAt.Equal(want) {
		t.Errorf("ExpiresAt = %v, want %v", login.ExpiresAt, want)
	}

	id, hash, err := f.svc.Authenticate(ctx, "Bearer "+login.AccessToken)
	if err != nil {
		t.Fatalf("Authenticate() error = %v", err)
	}
	if id.UserID != u.ID || id.TenantID != u.ID || id.Tier != accounts.TierFree || hash != accounts.HashToken(login.AccessToken) {
		t.Errorf("identity = %+v hash %s, want user %s tier free and the token's hash", id, hash, u.ID)
	}

	if err := f.svc.Logout(ctx, hash); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.Authenticate(ctx, "Bearer "+login.AccessToken); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("Authenticate() after logout error = %v, want ErrUnauthorized", err)
	}
}

func TestEveryLoginGetsANewToken(t *testing.T) {
	f := newFixture(t)
	f.user(t, "ada@example.com", pw)
	a, err1 := f.svc.Login(context.Background(), LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: "192.0.2.1"})
	b, err2 := f.svc.Login(context.Background(), LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: "192.0.2.1"})
	if err1 != nil || err2 != nil || a.AccessToken == b.AccessToken {
		t.Errorf("two logins gave %q, %q (%v, %v), want two different tokens", a.AccessToken, b.AccessToken, err1, err2)
	}
}

func TestAuthenticateRefuses(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "ada@example.com", pw)
	login := func() string {
		l, err := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: "192.0.2.1"})
		if err != nil {
			t.Fatal(err)
		}
		return l.AccessToken
	}
	unknown, _ := accounts.NewToken()
	cases := []struct {
		name   string
		header func() string
	}{
		{"missing header", func() string { return "" }},
		{"other scheme", func() string { return "Basic " + login() }},
		{"malformed token", func() string { return "Bearer not-a-token" }},
		{"unknown token", func() string { return "Bearer " + unknown }},
		{"expired token (checked in code, not left to TTL)", func() string {
			tok := login()
			f.clock.Advance(time.Hour)
			t.Cleanup(func() { f.clock.Advance(-time.Hour) })
			return "Bearer " + tok
		}},
		{"disabled user", func() string {
			tok := login()
			if err := f.store.SetDisabled(ctx, u.ID, true); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.store.SetDisabled(ctx, u.ID, false) })
			return "Bearer " + tok
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := f.svc.Authenticate(ctx, tc.header()); !errors.Is(err, ErrUnauthorized) {
				t.Errorf("Authenticate() error = %v, want ErrUnauthorized", err)
			}
		})
	}
}

func TestLoginFailuresLookAlike(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "ada@example.com", pw)
	_, unknownErr := f.svc.Login(ctx, LoginRequest{Email: "nobody@example.com", Password: pw, ClientIP: "192.0.2.1"})
	_, wrongErr := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: "wrong password", ClientIP: "192.0.2.1"})
	if !errors.Is(unknownErr, ErrInvalidCredentials) || !errors.Is(wrongErr, ErrInvalidCredentials) {
		t.Errorf("unknown email: %v; wrong password: %v; want ErrInvalidCredentials for both", unknownErr, wrongErr)
	}

	if err := f.store.SetDisabled(ctx, u.ID, true); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: "wrong password", ClientIP: "192.0.2.1"})
	if !errors.Is(err, ErrInvalidCredentials) {
		t.Errorf("disabled user, wrong password: %v, want ErrInvalidCredentials (disabled is only told to the password holder)", err)
	}
	_, err = f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: "192.0.2.1"})
	if !errors.Is(err, ErrAccountDisabled) {
		t.Errorf("disabled user, right password: %v, want ErrAccountDisabled", err)
	}
}

func TestBruteForceThrottle(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.user(t, "ada@example.com", pw)
	attacker, user := "198.51.100.66", "192.0.2.1"

	for i := range DefaultThrottle.PerAccountIP {
		if _, err := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: "guess", ClientIP: attacker}); !errors.Is(err, ErrInvalidCredentials) {
			t.Fatalf("attempt %d: %v, want ErrInvalidCredentials", i+1, err)
		}
	}
	_, err := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: attacker})
	var throttled *ThrottledError
	if !errors.As(err, &throttled) || throttled.RetryAfter < 1 || throttled.RetryAfter > int(DefaultThrottle.Window/time.Second) {
		t.Fatalf("6th attempt from the attacker's address: %v, want ThrottledError with RetryAfter in [1, 900]", err)
	}
	if _, err := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: user}); err != nil {
		t.Errorf("the real user from another address: %v, want success (one attacker can't lock them out)", err)
	}

	f.clock.Advance(DefaultThrottle.Window)
	if _, err := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: attacker}); err != nil {
		t.Errorf("after the window: %v, want success (the block lifts by itself)", err)
	}
}

func TestIPThrottleAcrossAccounts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i := range DefaultThrottle.PerIP {
		email := "user" + string(rune('a'+i)) + "@example.com"
		if _, err := f.svc.Login(ctx, LoginRequest{Email: email, Password: "guess", ClientIP: "198.51.100.7"}); !errors.Is(err, ErrInvalidCredentials) {
			t.Fatalf("attempt %d: %v, want ErrInvalidCredentials", i+1, err)
		}
	}
	_, err := f.svc.Login(ctx, LoginRequest{Email: "fresh@example.com", Password: "guess", ClientIP: "198.51.100.7"})
	var throttled *ThrottledError
	if !errors.As(err, &throttled) {
		t.Errorf("spraying past %d accounts from one address: %v, want ThrottledError", DefaultThrottle.PerIP, err)
	}
}

func TestOrganizationLogin(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "ada@example.com", pw)
	first, err := f.store.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.AddMember(ctx, first.ID, u.ID, accounts.RoleMember); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	second, err := f.store.CreateOrganization(ctx, "Globex")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.AddMember(ctx, second.ID, u.ID, accounts.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		requested string
		want      string
		wantErr   error
	}{
		{"default is the oldest organization", "", first.ID, nil},
		{"pick another organization", second.ID, second.ID, nil},
		{"pick the personal tenant", u.ID, u.ID, nil},
		{"not a member", "some-other-org", "", ErrNotAMember},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := f.svc.Login(ctx, LoginRequest{Email: "ada@example.com", Password: pw, TenantID: tc.requested, ClientIP: "192.0.2.1"})
			if !errors.Is(err, tc.wantErr) || l.Tenant.ID != tc.want {
				t.Fatalf("Login() = tenant %q, %v; want %q, %v", l.Tenant.ID, err, tc.want, tc.wantErr)
			}
			if err != nil {
				return
			}
			id, _, err := f.svc.Authenticate(ctx, "Bearer "+l.AccessToken)
			if err != nil || id.TenantID != tc.want {
				t.Errorf("Authenticate() tenant = %q, %v; want %q", id.TenantID, err, tc.want)
			}
		})
	}
}

func TestMiddleware(t *testing.T) {
	f := newFixture(t)
	f.user(t, "ada@example.com", pw)
	l, err := f.svc.Login(context.Background(), LoginRequest{Email: "ada@example.com", Password: pw, ClientIP: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	var seen accounts.Identity
	h := f.svc.Middleware(WriteError)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = IdentityFrom(r.Context())
		w.WriteHeader(http.StatusNoContent)
	}))
	cases := []struct {
		name       string
		header     string
		wantStatus int
		wantBody   string
	}{
		{"valid token", "Bearer " + l.AccessToken, 204, ""},
		{"no token", "", 401, `{"success":false,"code":"UNAUTHORIZED","message":"Authentication required: the access token is missing, invalid or expired."}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/x", nil)
			r.Header.Set("Authorization", tc.header)
			r.Header.Set("X-Tenant-ID", "someone-else")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.wantStatus || w.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	if seen.TenantID != l.Tenant.ID {
		t.Errorf("handler saw tenant %q, want the token's %q (never a header's)", seen.TenantID, l.Tenant.ID)
	}
}

func TestRequire(t *testing.T) {
	_, err := Require(context.Background())
	if e := httpapi.AsError(err); e.Code != httpapi.CodeUnauthorized || !errors.Is(err, ErrUnauthorized) {
		t.Errorf("Require() without an identity = %v, want UNAUTHORIZED", err)
	}
	want := accounts.Identity{UserID: "u", TenantID: "t"}
	if got, err := Require(WithIdentity(context.Background(), want, "h")); err != nil || got != want {
		t.Errorf("Require() = %+v, %v; want %+v", got, err, want)
	}
}

// brokenCounter is a failed-login store that is down.
type brokenCounter struct{ err error }

func (b brokenCounter) Failures(context.Context, string, time.Duration) (int, time.Time, error) {
	return 0, time.Time{}, b.err
}
func (b brokenCounter) AddFailure(context.Context, string, time.Duration) (int, error) {
	return 0, b.err
}
func (b brokenCounter) ClearFailures(context.Context, string, time.Duration) error { return b.err }

// TestLoginFailsClosedWhenTheThrottleStoreFails: login answers 503 SERVICE_UNAVAILABLE with
// Retry-After, as every limited route does, and never logs in unthrottled.
func TestLoginFailsClosedWhenTheThrottleStoreFails(t *testing.T) {
	f := newFixture(t)
	f.user(t, "ada@example.com", pw)
	f.svc.Failures = brokenCounter{errors.New("connection refused")}
	for _, password := range []string{pw, "a wrong password"} {
		_, err := f.svc.Login(context.Background(), LoginRequest{Email: "ada@example.com", Password: password, ClientIP: "192.0.2.1"})
		if !errors.Is(err, ErrThrottleUnavailable) {
			t.Fatalf("Login(%q) error = %v, want ErrThrottleUnavailable", password, err)
		}
		rec := httptest.NewRecorder()
		WriteError(rec, httptest.NewRequest(http.MethodPost, "/api/v1/auth/login", nil), err)
		body := rec.Body.String()
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" ||
			!strings.Contains(body, `"code":"SERVICE_UNAVAILABLE"`) || strings.Contains(body, "connection refused") {
			t.Errorf("response = %d (Retry-After %q) %s, want 503 SERVICE_UNAVAILABLE with Retry-After and no cause", rec.Code, rec.Header().Get("Retry-After"), body)
		}
	}
}
