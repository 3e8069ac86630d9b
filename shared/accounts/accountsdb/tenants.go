package accountsdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/dynamo"
)

// CreateOrganization creates an organization tenant on the free tier. Names are unique without
// regard to case or surrounding spaces (accounts.ErrOrgNameTaken), since they are how admins
// and logins name an organization.
func (s *Store) CreateOrganization(ctx context.Context, name string) (accounts.Tenant, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return accounts.Tenant{}, fmt.Errorf("create organization: %w", &accounts.ValidationError{Field: "name", Reason: "is required"})
	}
	t := accounts.Tenant{ID: uuid.NewString(), Name: name, Kind: accounts.KindOrganization, Tier: accounts.TierFree, CreatedAt: s.now()}
	namePK, nameSK := orgNameKeys(name)
	writes, err := putNew(s.table, newTenantItem(t), claimItem{PK: namePK, SK: nameSK, OwnerID: t.ID})
	if err != nil {
		return accounts.Tenant{}, fmt.Errorf("create organization %q: %w", name, err)
	}
	if err := s.transact(ctx, writes, nil, accounts.ErrOrgNameTaken); err != nil {
		return accounts.Tenant{}, fmt.Errorf("create organization %q: %w", name, err)
	}
	return t, nil
}

// GetTenant returns a personal or organization tenant by ID, or accounts.ErrNotFound.
func (s *Store) GetTenant(ctx context.Context, id string) (accounts.Tenant, error) {
	t, err := s.getTenant(ctx, id)
	if err != nil {
		return accounts.Tenant{}, fmt.Errorf("get tenant %s: %w", id, err)
	}
	return t, nil
}

func (s *Store) getTenant(ctx context.Context, id string) (accounts.Tenant, error) {
	var item tenantItem
	if err := s.getItem(ctx, dynamo.Key(tenantKeys(id)), &item); err != nil {
		return accounts.Tenant{}, err
	}
	return item.tenant(), nil
}

// GetOrganizationByName returns the organization of that name in any case, or
// accounts.ErrNotFound.
func (s *Store) GetOrganizationByName(ctx context.Context, name string) (accounts.Tenant, error) {
	var claim claimItem
	if err := s.getItem(ctx, dynamo.Key(orgNameKeys(name)), &claim); err != nil {
		return accounts.Tenant{}, fmt.Errorf("get organization %q: %w", name, err)
	}
	t, err := s.getTenant(ctx, claim.OwnerID)
	if err != nil {
		return accounts.Tenant{}, fmt.Errorf("get organization %q: %w", name, err)
	}
	return t, nil
}

// SetTier changes a tenant's plan, or returns accounts.ErrNotFound.
func (s *Store) SetTier(ctx context.Context, tenantID string, tier accounts.Tier) error {
	if _, err := accounts.ParseTier(string(tier)); err != nil {
		return fmt.Errorf("set tier of tenant %s: %w", tenantID, err)
	}
	if err := s.setAttribute(ctx, dynamo.Key(tenantKeys(tenantID)), "tier", &types.AttributeValueMemberS{Value: string(tier)}); err != nil {
		return fmt.Errorf("set tier of tenant %s: %w", tenantID, err)
	}
	return nil
}

// GateSettings returns a tenant's additions to the security gate (none when it has none), or
// accounts.ErrNotFound.
func (s *Store) GateSettings(ctx context.Context, tenantID string) (accounts.GateSettings, error) {
	var item tenantItem
	if err := s.getItem(ctx, dynamo.Key(tenantKeys(tenantID)), &item); err != nil {
		return accounts.GateSettings{}, fmt.Errorf("gate settings of tenant %s: %w", tenantID, err)
	}
	return accounts.GateSettings{Words: item.GateWords, URLPatterns: item.GateURLPatterns}, nil
}

// SetGateSettings replaces a tenant's additions to the security gate (empty lists clear them), or
// returns accounts.ErrNotFound. The caller checks them (runs/gate.Custom.Validate).
func (s *Store) SetGateSettings(ctx context.Context, tenantID string, g accounts.GateSettings) error {
	words, err := attributevalue.Marshal(append([]string{}, g.Words...))
	if err != nil {
		return fmt.Errorf("set gate settings of tenant %s: %w", tenantID, err)
	}
	patterns, err := attributevalue.Marshal(append([]string{}, g.URLPatterns...))
	if err != nil {
		return fmt.Errorf("set gate settings of tenant %s: %w", tenantID, err)
	}
	_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       dynamo.Key(tenantKeys(tenantID)),
		UpdateExpression:          aws.String("SET gateWords = :w, gateUrlPatterns = :p"),
		ConditionExpression:       exists,
		ExpressionAttributeValues: map[string]types.AttributeValue{":w": words, ":p": patterns},
	})
	if dynamo.ConditionFailed(err) {
		err = accounts.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("set gate settings of tenant %s: %w", tenantID, err)
	}
	return nil
}

// AddMember makes a user a member of an organization with role accounts.RoleAdmin or
// accounts.RoleMember. The organization and the user must exist (accounts.ErrNotFound; a
// personal tenant is not an organization); a second membership is accounts.ErrAlreadyMember.
func (s *Store) AddMember(ctx context.Context, orgID, userID, role string) error {
	if err := s.addMember(ctx, orgID, userID, role); err != nil {
		return fmt.Errorf("add user %s to organization %s: %w", userID, orgID, err)
	}
	return nil
}

func (s *Store) addMember(ctx context.Context, orgID, userID, role string) error {
	if role != accounts.RoleAdmin && role != accounts.RoleMember {
		return &accounts.ValidationError{Field: "role", Reason: "must be one of admin, member"}
	}
	org, err := s.getTenant(ctx, orgID)
	if err != nil {
		return err
	}
	if org.Kind != accounts.KindOrganization {
		return accounts.ErrNotFound
	}
	m := accounts.Membership{TenantID: org.ID, TenantName: org.Name, UserID: userID, Role: role, CreatedAt: s.now()}
	writes, err := putNew(s.table, newMemberItem(m))
	if err != nil {
		return err
	}
	// The user is checked in the transaction rather than read before it, so the membership
	// can't be written for a user that isn't there.
	userExists := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: &s.table, Key: dynamo.Key(userKeys(userID)), ConditionExpression: exists,
	}}
	return s.transact(ctx, append([]types.TransactWriteItem{userExists}, writes...), accounts.ErrNotFound, accounts.ErrAlreadyMember)
}

// ListMemberships returns a user's organization memberships, oldest first.
func (s *Store) ListMemberships(ctx context.Context, userID string) ([]accounts.Membership, error) {
	items, err := s.queryIndex(ctx, userOrgsPartition(userID), nil)
	if err != nil {
		return nil, fmt.Errorf("list memberships of user %s: %w", userID, err)
	}
	var stored []memberItem
	if err := attributevalue.UnmarshalListOfMaps(items, &stored); err != nil {
		return nil, fmt.Errorf("list memberships of user %s: %w", userID, err)
	}
	ms := make([]accounts.Membership, len(stored))
	for i, it := range stored {
		ms[i] = it.membership()
	}
	return ms, nil
}
