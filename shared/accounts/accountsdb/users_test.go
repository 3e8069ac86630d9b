package accountsdb

import (
	"errors"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
)

func mustCreateUser(t *testing.T, s *Store, email, name string) accounts.User {
	t.Helper()
	u, err := s.CreateUser(t.Context(), email, name, "hash-of-"+name)
	if err != nil {
		t.Fatalf("CreateUser(%q): %v", email, err)
	}
	return u
}

func TestCreateAndGetUser(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	u, err := s.CreateUser(ctx, "ana@example.com", "Ana", "$argon2id$hash")
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	want := accounts.User{ID: u.ID, Email: "ana@example.com", Name: "Ana", PasswordHash: "$argon2id$hash", CreatedAt: t0}
	if u != want || u.ID == "" {
		t.Errorf("CreateUser = %+v, want %+v with an ID", u, want)
	}
	if got, err := s.GetUser(ctx, u.ID); err != nil || got != want {
		t.Errorf("GetUser = (%+v, %v), want (%+v, nil)", got, err, want)
	}
	if got, err := s.GetUserByEmail(ctx, "ana@example.com"); err != nil || got != want {
		t.Errorf("GetUserByEmail = (%+v, %v), want (%+v, nil)", got, err, want)
	}
}

func TestCreateUserPersonalTenant(t *testing.T) {
	s, _ := newStore(t)
	u := mustCreateUser(t, s, "ana@example.com", "Ana")
	got, err := s.GetTenant(t.Context(), u.ID)
	want := accounts.Tenant{ID: u.ID, Name: "Ana", Kind: accounts.KindPersonal, Tier: accounts.TierFree, CreatedAt: t0}
	if err != nil || got != want {
		t.Errorf("GetTenant(user ID) = (%+v, %v), want (%+v, nil)", got, err, want)
	}
}

func TestCreateUserDuplicateEmail(t *testing.T) {
	s, _ := newStore(t)
	mustCreateUser(t, s, "ana@example.com", "Ana")
	for _, email := range []string{"ana@example.com", "ANA@Example.com", "  Ana@example.COM\n"} {
		t.Run(email, func(t *testing.T) {
			norm, err := accounts.NormalizeEmail(email)
			if err != nil {
				t.Fatalf("NormalizeEmail(%q): %v", email, err)
			}
			_, err = s.CreateUser(t.Context(), norm, "Other", "h")
			if !errors.Is(err, accounts.ErrEmailTaken) {
				t.Errorf("CreateUser(%q): got error %v, want ErrEmailTaken", norm, err)
			}
		})
	}
	// The transaction is all or nothing: no user item and no tenant of the refused attempts.
	users, err := s.ListUsers(t.Context())
	if err != nil || len(users) != 1 {
		t.Errorf("ListUsers = (%d users, %v), want (1, nil)", len(users), err)
	}
}

func TestCreateUserRefusesUnnormalizedEmail(t *testing.T) {
	s, _ := newStore(t)
	for _, email := range []string{"Ana@example.com", " ana@example.com", "not an email"} {
		if _, err := s.CreateUser(t.Context(), email, "Ana", "h"); err == nil {
			t.Errorf("CreateUser(%q): got nil error, want a refusal", email)
		}
	}
}

func TestGetUserNotFound(t *testing.T) {
	s, _ := newStore(t)
	mustCreateUser(t, s, "ana@example.com", "Ana")
	tests := []struct {
		name string
		get  func() error
	}{
		{"GetUser unknown ID", func() error { _, err := s.GetUser(t.Context(), "nobody"); return err }},
		{"GetUserByEmail unknown", func() error { _, err := s.GetUserByEmail(t.Context(), "bob@example.com"); return err }},
	}
	for _, tt := range tests {
		if err := tt.get(); !errors.Is(err, accounts.ErrNotFound) {
			t.Errorf("%s: got error %v, want ErrNotFound", tt.name, err)
		}
	}
}

func TestListUsers(t *testing.T) {
	s, _ := newStore(t)
	if got, err := s.ListUsers(t.Context()); err != nil || len(got) != 0 {
		t.Errorf("ListUsers on an empty table = (%v, %v), want none", got, err)
	}
	for _, e := range []string{"carla@example.com", "ana@example.com", "bob@example.com"} {
		mustCreateUser(t, s, e, e[:3])
	}
	got, err := s.ListUsers(t.Context())
	if err != nil {
		t.Fatalf("ListUsers: %v", err)
	}
	var emails []string
	for _, u := range got {
		emails = append(emails, u.Email)
	}
	want := []string{"ana@example.com", "bob@example.com", "carla@example.com"}
	if len(emails) != len(want) || emails[0] != want[0] || emails[1] != want[1] || emails[2] != want[2] {
		t.Errorf("ListUsers e-mails = %v, want %v", emails, want)
	}
}

func TestSetDisabled(t *testing.T) {
	s, _ := newStore(t)
	u := mustCreateUser(t, s, "ana@example.com", "Ana")
	for _, disabled := range []bool{true, false, true} {
		if err := s.SetDisabled(t.Context(), u.ID, disabled); err != nil {
			t.Fatalf("SetDisabled(%t): %v", disabled, err)
		}
		got, err := s.GetUser(t.Context(), u.ID)
		if err != nil || got.Disabled != disabled {
			t.Errorf("after SetDisabled(%t): got Disabled=%t (err %v), want %t", disabled, got.Disabled, err, disabled)
		}
	}
	if err := s.SetDisabled(t.Context(), "nobody", true); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("SetDisabled(unknown user): got error %v, want ErrNotFound", err)
	}
	if _, err := s.GetUser(t.Context(), "nobody"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("SetDisabled(unknown user) created an item: GetUser error %v, want ErrNotFound", err)
	}
}

func TestSetPasswordHash(t *testing.T) {
	s, _ := newStore(t)
	u := mustCreateUser(t, s, "ana@example.com", "Ana")
	if err := s.SetPasswordHash(t.Context(), u.ID, "new-hash"); err != nil {
		t.Fatalf("SetPasswordHash: %v", err)
	}
	if got, _ := s.GetUser(t.Context(), u.ID); got.PasswordHash != "new-hash" {
		t.Errorf("PasswordHash = %q, want %q", got.PasswordHash, "new-hash")
	}
	if err := s.SetPasswordHash(t.Context(), "nobody", "h"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("SetPasswordHash(unknown user): got error %v, want ErrNotFound", err)
	}
}
