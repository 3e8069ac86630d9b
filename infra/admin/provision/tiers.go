package provision

import (
	"context"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

// SetUserTier sets the tier of the tenant the user with an e-mail logs into by default (see
// accounts.ChooseTenant: the oldest organization, else the personal tenant), since that is the
// tenant whose limits the user meets. It returns the tenant as updated.
func SetUserTier(ctx context.Context, s *accountsdb.Store, email string, tier accounts.Tier) (accounts.Tenant, error) {
	u, err := userByEmail(ctx, s, email)
	if err != nil {
		return accounts.Tenant{}, err
	}
	ms, err := s.ListMemberships(ctx, u.ID)
	if err != nil {
		return accounts.Tenant{}, err
	}
	id, err := accounts.ChooseTenant(u.ID, ms, "")
	if err != nil {
		return accounts.Tenant{}, err
	}
	return setTier(ctx, s, id, tier)
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
