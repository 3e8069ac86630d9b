package provision

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

// NewUser is a user to create.
type NewUser struct {
	Email    string // as typed; it is normalized
	Name     string
	Password string // checked against the password policy
	Org      string // optional: an existing organization the user joins as a member
}

// MissingOrgError refuses to create a user in an organization that does not exist.
type MissingOrgError struct{ Org string }

func (e *MissingOrgError) Error() string {
	return fmt.Sprintf("organization %q does not exist: create it first (admin org create --name %q) or check the name; no user was created", e.Org, e.Org)
}

// Unwrap lets errors.Is(err, accounts.ErrNotFound) hold.
func (e *MissingOrgError) Unwrap() error { return accounts.ErrNotFound }

// CreateUser creates a user with a personal tenant and, when nu.Org is set, makes the user a
// member of that organization. The organization is looked up first, so a misspelled name
// creates nothing (a *MissingOrgError).
func CreateUser(ctx context.Context, s *accountsdb.Store, nu NewUser) (accounts.User, error) {
	email, err := accounts.NormalizeEmail(nu.Email)
	if err != nil {
		return accounts.User{}, err
	}
	name := strings.TrimSpace(nu.Name)
	if name == "" {
		return accounts.User{}, &accounts.ValidationError{Field: "name", Reason: "is required"}
	}
	var org accounts.Tenant
	if nu.Org != "" {
		org, err = s.GetOrganizationByName(ctx, nu.Org)
		if errors.Is(err, accounts.ErrNotFound) {
			return accounts.User{}, &MissingOrgError{Org: nu.Org}
		}
		if err != nil {
			return accounts.User{}, err
		}
	}
	hash, err := accounts.HashPassword(nu.Password)
	if err != nil {
		return accounts.User{}, err
	}
	u, err := s.CreateUser(ctx, email, name, hash)
	if err != nil {
		return accounts.User{}, err
	}
	if nu.Org != "" {
		if err := s.AddMember(ctx, org.ID, u.ID, accounts.RoleMember); err != nil {
			return u, fmt.Errorf("user %s was created, but not added to %q: %w", email, org.Name, err)
		}
	}
	return u, nil
}

// SetDisabled disables (and signs out everywhere) or re-enables the user with an e-mail.
func SetDisabled(ctx context.Context, s *accountsdb.Store, email string, disabled bool) (accounts.User, error) {
	u, err := userByEmail(ctx, s, email)
	if err != nil {
		return accounts.User{}, err
	}
	if err := s.SetDisabled(ctx, u.ID, disabled); err != nil {
		return accounts.User{}, err
	}
	u.Disabled = disabled
	return u, nil
}

// AddMember makes the user with an e-mail a member of the organization of that name.
func AddMember(ctx context.Context, s *accountsdb.Store, orgName, email, role string) error {
	org, err := s.GetOrganizationByName(ctx, orgName)
	if err != nil {
		return err
	}
	u, err := userByEmail(ctx, s, email)
	if err != nil {
		return err
	}
	return s.AddMember(ctx, org.ID, u.ID, role)
}
