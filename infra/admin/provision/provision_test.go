package provision

import (
	"errors"
	"strings"
	"testing"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// newStore connects the way the CLI does, to a fresh table.
func newStore(t *testing.T) *accountsdb.Store {
	t.Helper()
	db := dynamotest.New(t)
	s, err := Connect(t.Context(), db.Endpoint, db.Tables["AccountsTable"])
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return s
}

func TestEnsureDemoIsIdempotent(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	for i, want := range []bool{true, false} {
		created, err := EnsureDemo(ctx, s, "Demo@Example.com", "demo-password", "Demo Org")
		if err != nil || created != want {
			t.Fatalf("EnsureDemo call %d = (%t, %v), want (%t, nil)", i+1, created, err, want)
		}
	}
	u, err := s.GetUserByEmail(ctx, "demo@example.com")
	if err != nil {
		t.Fatalf("GetUserByEmail: %v", err)
	}
	if ok, err := accounts.VerifyPassword(u.PasswordHash, "demo-password"); !ok || err != nil {
		t.Errorf("VerifyPassword(demo password) = (%t, %v), want (true, nil)", ok, err)
	}
	ms, err := s.ListMemberships(ctx, u.ID)
	if err != nil || len(ms) != 1 || ms[0].TenantName != "Demo Org" || ms[0].Role != accounts.RoleAdmin {
		t.Errorf("ListMemberships = (%+v, %v), want one admin membership of Demo Org", ms, err)
	}
	users, err := s.ListUsers(ctx)
	if err != nil || len(users) != 1 {
		t.Errorf("ListUsers = (%d users, %v), want 1", len(users), err)
	}
}

func TestEnsureDemoCompletesPartialSetup(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *accountsdb.Store)
	}{
		{"organization exists", func(t *testing.T, s *accountsdb.Store) {
			if _, err := s.CreateOrganization(t.Context(), "demo org"); err != nil {
				t.Fatal(err)
			}
		}},
		{"user and organization exist, no membership", func(t *testing.T, s *accountsdb.Store) {
			if _, err := s.CreateOrganization(t.Context(), "Demo Org"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateUser(t.Context(), "demo@example.com", "Someone", "existing-hash"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			tt.setup(t, s)
			if created, err := EnsureDemo(t.Context(), s, "demo@example.com", "demo-password", "Demo Org"); err != nil || !created {
				t.Fatalf("EnsureDemo = (%t, %v), want (true, nil)", created, err)
			}
			u, err := s.GetUserByEmail(t.Context(), "demo@example.com")
			if err != nil {
				t.Fatalf("GetUserByEmail: %v", err)
			}
			if ms, err := s.ListMemberships(t.Context(), u.ID); err != nil || len(ms) != 1 || ms[0].Role != accounts.RoleAdmin {
				t.Errorf("ListMemberships = (%+v, %v), want one admin membership", ms, err)
			}
		})
	}
}

func TestEnsureDemoKeepsExistingPassword(t *testing.T) {
	s := newStore(t)
	if _, err := EnsureDemo(t.Context(), s, "demo@example.com", "first-password", "Demo Org"); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureDemo(t.Context(), s, "demo@example.com", "second-password", "Demo Org"); err != nil {
		t.Fatal(err)
	}
	u, _ := s.GetUserByEmail(t.Context(), "demo@example.com")
	if ok, _ := accounts.VerifyPassword(u.PasswordHash, "first-password"); !ok {
		t.Errorf("the second EnsureDemo changed the password, want it kept")
	}
}

func TestSetPersonalTier(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	solo, err := CreateUser(ctx, s, NewUser{Email: "solo@example.com", Name: "Solo", Password: "password-1"})
	if err != nil {
		t.Fatal(err)
	}
	acme, _ := s.CreateOrganization(ctx, "Acme")
	member, err := CreateUser(ctx, s, NewUser{Email: "m@example.com", Name: "M", Password: "password-1", Org: "Acme"})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		email      string
		personal   bool
		wantTenant string
	}{
		{"no organization: the personal tenant", "solo@example.com", false, solo.ID},
		{"member, said personal", "M@Example.com", true, member.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetPersonalTier(ctx, s, tt.email, tt.personal, accounts.TierPro)
			if err != nil || got.ID != tt.wantTenant || got.Tier != accounts.TierPro || got.Kind != accounts.KindPersonal {
				t.Errorf("SetPersonalTier = (%s %s %s, %v), want (%s pro personal, nil)", got.ID, got.Kind, got.Tier, err, tt.wantTenant)
			}
		})
	}

	// A member without --personal: which tenant is meant is not guessed.
	_, err = SetPersonalTier(ctx, s, "m@example.com", false, accounts.TierEnterprise)
	var amb *AmbiguousTenantError
	if !errors.As(err, &amb) || !strings.Contains(err.Error(), `organization "Acme"`) || !strings.Contains(err.Error(), "--personal") {
		t.Errorf("SetPersonalTier(member) error = %v, want an AmbiguousTenantError naming Acme and --personal", err)
	}
	for _, id := range []string{acme.ID, member.ID} {
		if tn, _ := s.GetTenant(ctx, id); tn.Tier == accounts.TierEnterprise {
			t.Errorf("tenant %s (%s) went to enterprise, want nothing changed by a refused call", id, tn.Name)
		}
	}
	if _, err := SetPersonalTier(ctx, s, "nobody@example.com", false, accounts.TierPro); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("SetPersonalTier(unknown user): got error %v, want ErrNotFound", err)
	}
}

func TestSetOrgTier(t *testing.T) {
	s := newStore(t)
	org, _ := s.CreateOrganization(t.Context(), "Acme")
	got, err := SetOrgTier(t.Context(), s, "ACME", accounts.TierPro)
	if err != nil || got.ID != org.ID || got.Tier != accounts.TierPro {
		t.Errorf("SetOrgTier = (%+v, %v), want Acme on pro", got, err)
	}
	if _, err := SetOrgTier(t.Context(), s, "Other", accounts.TierPro); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("SetOrgTier(unknown): got error %v, want ErrNotFound", err)
	}
}

func TestCreateUserWithUnknownOrgCreatesNothing(t *testing.T) {
	s := newStore(t)
	_, err := CreateUser(t.Context(), s, NewUser{Email: "a@example.com", Name: "A", Password: "password-1", Org: "Missing"})
	if !errors.Is(err, accounts.ErrNotFound) || !strings.Contains(err.Error(), `organization "Missing" does not exist: create it first`) {
		t.Fatalf("CreateUser: got error %v, want ErrNotFound saying to create the organization first", err)
	}
	if _, err := s.GetUserByEmail(t.Context(), "a@example.com"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("GetUserByEmail: got error %v, want ErrNotFound: the user must not be created", err)
	}
}

func TestGeneratePassword(t *testing.T) {
	a, err := GeneratePassword()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GeneratePassword()
	if len(a) != 24 || a == b {
		t.Errorf("GeneratePassword = %q, %q, want two distinct 24-character passwords", a, b)
	}
	if err := accounts.ValidatePassword(a); err != nil {
		t.Errorf("ValidatePassword(generated): %v", err)
	}
}
