package provision

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

// AmbiguousTenantError refuses to guess which tenant of a user is meant: the user has a
// personal tenant and belongs to organizations.
type AmbiguousTenantError struct {
	Email string
	Orgs  []string
}

func (e *AmbiguousTenantError) Error() string {
	return fmt.Sprintf("%s has a personal tenant and belongs to %s: say --personal for the personal tenant, or --org NAME for an organization",
		e.Email, quoteList(e.Orgs))
}

// SetPersonalTier sets the tier of the personal tenant of the user with an e-mail and returns it
// as updated. A user who also belongs to organizations logs into one of them by default, so
// unless personal says the personal tenant is meant, such a user gets an *AmbiguousTenantError
// and nothing changes.
func SetPersonalTier(ctx context.Context, s *accountsdb.Store, email string, personal bool, tier accounts.Tier) (accounts.Tenant, error) {
	u, err := userByEmail(ctx, s, email)
	if err != nil {
		return accounts.Tenant{}, err
	}
	if !personal {
		ms, err := s.ListMemberships(ctx, u.ID)
		if err != nil {
			return accounts.Tenant{}, err
		}
		if len(ms) > 0 {
			orgs := make([]string, len(ms))
			for i, m := range ms {
				orgs[i] = m.TenantName
			}
			return accounts.Tenant{}, &AmbiguousTenantError{Email: u.Email, Orgs: orgs}
		}
	}
	return setTier(ctx, s, u.ID, tier)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return "organization " + q[0]
	}
	return "organizations " + strings.Join(q, ", ")
}

// SetOrgTier sets the tier of the organization of that name and returns it as updated.
func SetOrgTier(ctx context.Context, s *accountsdb.Store, orgName string, tier accounts.Tier) (accounts.Tenant, error) {
	org, err := s.GetOrganizationByName(ctx, orgName)
	if err != nil {
		return accounts.Tenant{}, err
	}
	return setTier(ctx, s, org.ID, tier)
}

func setTier(ctx context.Context, s *accountsdb.Store, tenantID string, tier accounts.Tier) (accounts.Tenant, error) {
	if err := s.SetTier(ctx, tenantID, tier); err != nil {
		return accounts.Tenant{}, err
	}
	return s.GetTenant(ctx, tenantID)
}
