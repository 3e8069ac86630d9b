package provision

import (
	"context"
	"errors"
	"fmt"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

// demoName is the demo user's display name.
const demoName = "Demo User"

// EnsureDemo sets up the demo account: an organization, a user with password and the user's
// admin membership, creating whichever is missing. It reports whether it created anything. An
// existing user keeps its password, so running it on every start of the local stack never
// undoes a change made since.
func EnsureDemo(ctx context.Context, store *accountsdb.Store, email, password, orgName string) (created bool, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("ensure demo account: %w", err)
		}
	}()
	email, err = accounts.NormalizeEmail(email)
	if err != nil {
		return false, err
	}
	org, err := store.GetOrganizationByName(ctx, orgName)
	if errors.Is(err, accounts.ErrNotFound) {
		org, err = store.CreateOrganization(ctx, orgName)
		created = err == nil
	}
	if err != nil {
		return created, err
	}
	user, err := store.GetUserByEmail(ctx, email)
	if errors.Is(err, accounts.ErrNotFound) {
		user, err = createDemoUser(ctx, store, email, password)
		created = created || err == nil
	}
	if err != nil {
		return created, err
	}
	switch err := store.AddMember(ctx, org.ID, user.ID, accounts.RoleAdmin); {
	case err == nil:
		return true, nil
	case errors.Is(err, accounts.ErrAlreadyMember):
		return created, nil
	default:
		return created, err
	}
}

func createDemoUser(ctx context.Context, s *accountsdb.Store, email, password string) (accounts.User, error) {
	hash, err := accounts.HashPassword(password)
	if err != nil {
		return accounts.User{}, err
	}
	return s.CreateUser(ctx, email, demoName, hash)
}
