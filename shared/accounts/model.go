package accounts

import (
	"errors"
	"sort"
	"time"
)

// Sentinel errors of the accounts store, mapped to the contract at the HTTP edge.
var (
	ErrNotFound      = errors.New("accounts: not found")
	ErrEmailTaken    = errors.New("accounts: email already registered")
	ErrOrgNameTaken  = errors.New("accounts: organization name already taken")
	ErrAlreadyMember = errors.New("accounts: already a member")
)

// User is an account. A user's personal tenant has the user's ID.
type User struct {
	ID           string
	Email        string
	Name         string
	Disabled     bool
	PasswordHash string
	CreatedAt    time.Time
}

// Tenant kinds: a user's own tenant, or an organization's.
const (
	KindPersonal     = "personal"
	KindOrganization = "organization"
)

// Tenant is whose data a request reads and writes: a user (personal) or an organization.
type Tenant struct {
	ID        string
	Name      string
	Kind      string
	Tier      Tier
	CreatedAt time.Time
}

// GateSettings are a tenant's additions to the run API's security gate: words that mark an
// element as risky to activate, and URL patterns of its own checkout or payment pages (their
// rules are package runs/gate's Custom, which checks them before they are stored). They are kept
// on the tenant's item but read apart from it, only by the routes that need them.
type GateSettings struct {
	Words       []string
	URLPatterns []string
}

// Organization roles.
const (
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Membership is a user's place in an organization.
type Membership struct {
	TenantID   string
	TenantName string
	UserID     string
	Role       string
	CreatedAt  time.Time
}

// TokenRecord is what is stored of an access token: its SHA-256, never the token.
type TokenRecord struct {
	Hash      string
	UserID    string
	TenantID  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Expired reports whether the token is past its absolute lifetime at now. DynamoDB's TTL
// deletes lazily (up to days late), so every read checks this itself.
func (t TokenRecord) Expired(now time.Time) bool {
	return !now.Before(t.ExpiresAt)
}

// ErrNotAMember is returned when a login asks for an organization the user does not belong to.
var ErrNotAMember = errors.New("accounts: not a member of that organization")

// ChooseTenant picks the tenant a login enters. A user who belongs to organizations logs into
// one of them (tenant = organization): the requested one when given, else the oldest membership,
// so the choice is stable. A user without organizations logs into the personal tenant. Asking for
// the personal tenant by its ID is allowed too.
func ChooseTenant(userID string, memberships []Membership, requested string) (string, error) {
	if requested != "" {
		if requested == userID {
			return userID, nil
		}
		for _, m := range memberships {
			if m.TenantID == requested {
				return requested, nil
			}
		}
		return "", ErrNotAMember
	}
	if len(memberships) == 0 {
		return userID, nil
	}
	ms := append([]Membership(nil), memberships...)
	sort.SliceStable(ms, func(i, j int) bool {
		if !ms[i].CreatedAt.Equal(ms[j].CreatedAt) {
			return ms[i].CreatedAt.Before(ms[j].CreatedAt)
		}
		return ms[i].TenantID < ms[j].TenantID
	})
	return ms[0].TenantID, nil
}
