package accountsdb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/dynamo"
)

// CreateUser creates a user and the user's personal tenant (same ID, free tier) in one
// transaction, so there is never a user without a tenant. email must be normalized
// (accounts.NormalizeEmail): it is the uniqueness key, and a second spelling would be a second
// account. An e-mail already registered is accounts.ErrEmailTaken.
func (s *Store) CreateUser(ctx context.Context, email, name, passwordHash string) (accounts.User, error) {
	if norm, err := accounts.NormalizeEmail(email); err != nil || norm != email {
		return accounts.User{}, fmt.Errorf("create user: email %q is not normalized", email)
	}
	now := s.now()
	u := accounts.User{ID: uuid.NewString(), Email: email, Name: name, PasswordHash: passwordHash, CreatedAt: now}
	emailPK, emailSK := emailKeys(email)
	personal := accounts.Tenant{ID: u.ID, Name: name, Kind: accounts.KindPersonal, Tier: accounts.TierFree, CreatedAt: now}
	writes, err := putNew(s.table, newUserItem(u), claimItem{PK: emailPK, SK: emailSK, OwnerID: u.ID}, newTenantItem(personal))
	if err != nil {
		return accounts.User{}, fmt.Errorf("create user: %w", err)
	}
	if err := s.transact(ctx, writes, nil, accounts.ErrEmailTaken); err != nil {
		return accounts.User{}, fmt.Errorf("create user %s: %w", email, err)
	}
	return u, nil
}

// GetUser returns a user by ID, or accounts.ErrNotFound.
func (s *Store) GetUser(ctx context.Context, id string) (accounts.User, error) {
	u, err := s.getUser(ctx, id)
	if err != nil {
		return accounts.User{}, fmt.Errorf("get user %s: %w", id, err)
	}
	return u, nil
}

func (s *Store) getUser(ctx context.Context, id string) (accounts.User, error) {
	var item userItem
	if err := s.getItem(ctx, dynamo.Key(userKeys(id)), &item); err != nil {
		return accounts.User{}, err
	}
	return item.user(), nil
}

// GetUserByEmail returns the user with a normalized e-mail, or accounts.ErrNotFound. It reads
// the e-mail claim rather than the USERS index, which is only eventually consistent.
func (s *Store) GetUserByEmail(ctx context.Context, normalizedEmail string) (accounts.User, error) {
	var claim claimItem
	if err := s.getItem(ctx, dynamo.Key(emailKeys(normalizedEmail)), &claim); err != nil {
		return accounts.User{}, fmt.Errorf("get user by email %s: %w", normalizedEmail, err)
	}
	u, err := s.getUser(ctx, claim.OwnerID)
	if err != nil {
		return accounts.User{}, fmt.Errorf("get user by email %s: %w", normalizedEmail, err)
	}
	return u, nil
}

// ListUsers returns every user, ordered by e-mail.
func (s *Store) ListUsers(ctx context.Context) ([]accounts.User, error) {
	items, err := s.queryIndex(ctx, usersPartition, nil)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	var stored []userItem
	if err := attributevalue.UnmarshalListOfMaps(items, &stored); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	users := make([]accounts.User, len(stored))
	for i, it := range stored {
		users[i] = it.user()
	}
	return users, nil
}

// SetDisabled disables or re-enables a user (accounts.ErrNotFound if there is none). Disabling
// also deletes the user's tokens, which signs the user out everywhere; see DeleteUserTokens for
// why the token check must still look at Disabled.
func (s *Store) SetDisabled(ctx context.Context, userID string, disabled bool) error {
	err := s.setAttribute(ctx, dynamo.Key(userKeys(userID)), "disabled", &types.AttributeValueMemberBOOL{Value: disabled})
	if err == nil && disabled {
		err = s.deleteUserTokens(ctx, userID)
	}
	if err != nil {
		return fmt.Errorf("set disabled=%t for user %s: %w", disabled, userID, err)
	}
	return nil
}

// SetPasswordHash replaces a user's password hash (accounts.ErrNotFound if there is none).
func (s *Store) SetPasswordHash(ctx context.Context, userID, hash string) error {
	if err := s.setAttribute(ctx, dynamo.Key(userKeys(userID)), "passwordHash", &types.AttributeValueMemberS{Value: hash}); err != nil {
		return fmt.Errorf("set password hash of user %s: %w", userID, err)
	}
	return nil
}
