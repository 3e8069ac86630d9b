package provision

import (
	"errors"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/dynamotest"
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

func TestSetUserTier(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	// Real time: DynamoDB Local runs TTL, so items must not look expired to it.
	clock := time.Now().UTC().Truncate(time.Second)
	s.Now = func() time.Time { return clock }

	solo, err := CreateUser(ctx, s, NewUser{Email: "solo@example.com", Name: "Solo", Password: "password-1"})
	if err != nil {
		t.Fatal(err)
	}
	older, _ := s.CreateOrganization(ctx, "Older")
	newer, _ := s.CreateOrganization(ctx, "Newer")
	member, err := CreateUser(ctx, s, NewUser{Email: "m@example.com", Name: "M", Password: "password-1", Org: "Older"})
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Hour)
	if err := AddMember(ctx, s, "Newer", "m@example.com", accounts.RoleAdmin); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		email      string
		tier       accounts.Tier
		wantTenant string
	}{
		{"no organization: personal tenant", "solo@example.com", accounts.TierPro, solo.ID},
		{"member: oldest organization", "M@Example.com", accounts.TierEnterprise, older.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetUserTier(ctx, s, tt.email, tt.tier)
			if err != nil || got.ID != tt.wantTenant || got.Tier != tt.tier {
				t.Errorf("SetUserTier = (%s %s, %v), want (%s %s, nil)", got.ID, got.Tier, err, tt.wantTenant, tt.tier)
			}
		})
	}
	for _, id := range []string{member.ID, newer.ID} {
		if tn, _ := s.GetTenant(ctx, id); tn.Tier != accounts.TierFree {
			t.Errorf("tenant %s (%s): got tier %s, want free: only the login tenant changes", id, tn.Name, tn.Tier)
		}
	}
	if _, err := SetUserTier(ctx, s, "nobody@example.com", accounts.TierPro); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("SetUserTier(unknown user): got error %v, want ErrNotFound", err)
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
	if !errors.Is(err, accounts.ErrNotFound) {
		t.Fatalf("CreateUser: got error %v, want ErrNotFound", err)
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
