package app

import (
	"cmp"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/ratelimit"
)

// Accounts is the accounts store.
func (a *App) Accounts() *accountsdb.Store {
	return accountsdb.New(a.DynamoDB, a.Config.AccountsTable)
}

// Auth builds the authentication service; the token lifetime comes from AUTH_TOKEN_TTL_HOURS.
func (a *App) Auth() (*auth.Service, error) {
	ttl := cmp.Or(a.Config.AuthTokenTTL, auth.DefaultTokenTTL)
	return &auth.Service{
		Store:    a.Accounts(),
		Failures: ratelimit.New(a.DynamoDB, a.Config.RateLimitsTable),
		Throttle: auth.DefaultThrottle,
		TokenTTL: ttl,
		Logger:   a.Logger,
	}, nil
}

// Edge is how a family of routes answers a refused request: the main API and the run API have
// different error bodies.
type Edge struct {
	AuthError func(w http.ResponseWriter, r *http.Request, err error)
	Refuse    ratelimit.Refuse
}

// MainAPI answers in the {success:false, code, message} envelope.
var MainAPI = Edge{AuthError: auth.WriteError, Refuse: ratelimit.RefuseEnvelope}

// Protect is ProtectWith for the main API.
func (a *App) Protect(class string, h http.Handler) (http.Handler, error) {
	return a.ProtectWith(MainAPI, class, h)
}

// ProtectWith admits only authenticated requests within the tenant's rate limit for the class,
// in that order: a request without a valid token never spends the tenant's quota. An empty class
// means the route is not rate limited.
func (a *App) ProtectWith(e Edge, class string, h http.Handler) (http.Handler, error) {
	svc, err := a.Auth()
	if err != nil {
		return nil, err
	}
	if class != "" {
		limits, err := ratelimit.ParseConfig(a.Config.Lookup)
		if err != nil {
			return nil, err
		}
		h = ratelimit.Middleware(ratelimit.New(a.DynamoDB, a.Config.RateLimitsTable), limits, class, tenantSubject, e.Refuse)(h)
	}
	return svc.Middleware(e.AuthError)(h), nil
}

func tenantSubject(r *http.Request) (string, accounts.Tier) {
	id, _ := auth.IdentityFrom(r.Context())
	return ratelimit.TenantSubject(id.TenantID), id.Tier
}
