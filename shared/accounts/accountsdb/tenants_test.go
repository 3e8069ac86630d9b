package accountsdb

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/accounts"
)

func mustCreateOrg(t *testing.T, s *Store, name string) accounts.Tenant {
	t.Helper()
	org, err := s.CreateOrganization(t.Context(), name)
	if err != nil {
		t.Fatalf("CreateOrganization(%q): %v", name, err)
	}
	return org
}

func TestCreateOrganization(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	org := mustCreateOrg(t, s, " Acme Corp ")
	want := accounts.Tenant{ID: org.ID, Name: "Acme Corp", Kind: accounts.KindOrganization, Tier: accounts.TierFree, CreatedAt: t0}
	if org != want || org.ID == "" {
		t.Errorf("CreateOrganization = %+v, want %+v with an ID", org, want)
	}
	if got, err := s.GetTenant(ctx, org.ID); err != nil || got != want {
		t.Errorf("GetTenant = (%+v, %v), want (%+v, nil)", got, err, want)
	}
	for _, name := range []string{"Acme Corp", "acme corp", "ACME CORP "} {
		if got, err := s.GetOrganizationByName(ctx, name); err != nil || got != want {
			t.Errorf("GetOrganizationByName(%q) = (%+v, %v), want (%+v, nil)", name, got, err, want)
		}
	}
	if _, err := s.GetOrganizationByName(ctx, "Other"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("GetOrganizationByName(unknown): got error %v, want ErrNotFound", err)
	}
	if _, err := s.GetTenant(ctx, "nobody"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("GetTenant(unknown): got error %v, want ErrNotFound", err)
	}
}

func TestCreateOrganizationRefusals(t *testing.T) {
	s, _ := newStore(t)
	mustCreateOrg(t, s, "Acme")
	tests := []struct {
		name      string
		orgName   string
		wantErr   error
		wantField string
	}{
		{"same name", "Acme", accounts.ErrOrgNameTaken, ""},
		{"other case", "aCME", accounts.ErrOrgNameTaken, ""},
		{"surrounding spaces", "  ACME\t", accounts.ErrOrgNameTaken, ""},
		{"empty", "", nil, "name"},
		{"blank", "   ", nil, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.CreateOrganization(t.Context(), tt.orgName)
			var ve *accounts.ValidationError
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("CreateOrganization(%q): got error %v, want %v", tt.orgName, err, tt.wantErr)
			case tt.wantField != "" && (!errors.As(err, &ve) || ve.Field != tt.wantField):
				t.Errorf("CreateOrganization(%q): got error %v, want a ValidationError of %q", tt.orgName, err, tt.wantField)
			}
		})
	}
}

func TestSetTier(t *testing.T) {
	s, _ := newStore(t)
	u := mustCreateUser(t, s, "ana@example.com", "Ana")
	org := mustCreateOrg(t, s, "Acme")
	tests := []struct {
		name    string
		tenant  string
		tier    accounts.Tier
		wantErr error // nil when the tier must be set
	}{
		{"personal to pro", u.ID, accounts.TierPro, nil},
		{"organization to enterprise", org.ID, accounts.TierEnterprise, nil},
		{"back to free", org.ID, accounts.TierFree, nil},
		{"unknown tenant", "nobody", accounts.TierPro, accounts.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.SetTier(t.Context(), tt.tenant, tt.tier)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("SetTier: got error %v, want %v", err, tt.wantErr)
				}
				// An update without its condition would have created a bare tenant.
				if _, err := s.GetTenant(t.Context(), tt.tenant); !errors.Is(err, accounts.ErrNotFound) {
					t.Errorf("GetTenant after a refused SetTier: got error %v, want ErrNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SetTier: %v", err)
			}
			if got, err := s.GetTenant(t.Context(), tt.tenant); err != nil || got.Tier != tt.tier {
				t.Errorf("GetTenant: got tier %q (err %v), want %q", got.Tier, err, tt.tier)
			}
		})
	}
	var ve *accounts.ValidationError
	if err := s.SetTier(t.Context(), org.ID, "gold"); !errors.As(err, &ve) || ve.Field != "tier" {
		t.Errorf("SetTier(gold): got error %v, want a tier ValidationError", err)
	}
}

func TestSetGateSettings(t *testing.T) {
	s, _ := newStore(t)
	org := mustCreateOrg(t, s, "Acme")
	if got, err := s.GateSettings(t.Context(), org.ID); err != nil || got.Words != nil || got.URLPatterns != nil {
		t.Fatalf("a new tenant's gate settings = %+v (err %v), want none", got, err)
	}
	want := accounts.GateSettings{Words: []string{"Approve invoice", "Freigeben"}, URLPatterns: []string{"*.acme.com/billing"}}
	if err := s.SetGateSettings(t.Context(), org.ID, want); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GateSettings(t.Context(), org.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("GateSettings = %+v (err %v), want %+v", got, err, want)
	}
	if got, err := s.GetTenant(t.Context(), org.ID); err != nil || got != org {
		t.Errorf("GetTenant = %+v (err %v), want the tenant unchanged %+v", got, err, org)
	}
	if err := s.SetGateSettings(t.Context(), org.ID, accounts.GateSettings{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GateSettings(t.Context(), org.ID); len(got.Words)+len(got.URLPatterns) != 0 {
		t.Errorf("gate settings after clearing = %+v, want none", got)
	}
	if err := s.SetGateSettings(t.Context(), "nobody", want); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("SetGateSettings of an unknown tenant: got error %v, want ErrNotFound", err)
	}
	if _, err := s.GateSettings(t.Context(), "nobody"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("GateSettings after a refused SetGateSettings: got error %v, want ErrNotFound", err)
	}
}

func TestMemberships(t *testing.T) {
	s, clk := newStore(t)
	ctx := t.Context()
	u := mustCreateUser(t, s, "ana@example.com", "Ana")
	other := mustCreateUser(t, s, "bob@example.com", "Bob")
	first := mustCreateOrg(t, s, "Zeta")
	second := mustCreateOrg(t, s, "Alpha")

	if got, err := s.ListMemberships(ctx, u.ID); err != nil || len(got) != 0 {
		t.Errorf("ListMemberships before any = (%v, %v), want none", got, err)
	}
	// Added out of name order: the list is by time of joining.
	if err := s.AddMember(ctx, first.ID, u.ID, accounts.RoleAdmin); err != nil {
		t.Fatalf("AddMember(first): %v", err)
	}
	clk.Advance(time.Second)
	if err := s.AddMember(ctx, second.ID, u.ID, accounts.RoleMember); err != nil {
		t.Fatalf("AddMember(second): %v", err)
	}
	if err := s.AddMember(ctx, second.ID, other.ID, accounts.RoleMember); err != nil {
		t.Fatalf("AddMember(other user): %v", err)
	}

	got, err := s.ListMemberships(ctx, u.ID)
	if err != nil {
		t.Fatalf("ListMemberships: %v", err)
	}
	want := []accounts.Membership{
		{TenantID: first.ID, TenantName: "Zeta", UserID: u.ID, Role: accounts.RoleAdmin, CreatedAt: t0},
		{TenantID: second.ID, TenantName: "Alpha", UserID: u.ID, Role: accounts.RoleMember, CreatedAt: t0.Add(time.Second)},
	}
	if len(got) != len(want) {
		t.Fatalf("ListMemberships = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("membership %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	refusals := []struct {
		name              string
		org, user, role   string
		wantErr           error
		wantValidationFor string
	}{
		{"already a member", first.ID, u.ID, accounts.RoleMember, accounts.ErrAlreadyMember, ""},
		{"unknown organization", "nowhere", u.ID, accounts.RoleMember, accounts.ErrNotFound, ""},
		{"unknown user", first.ID, "nobody", accounts.RoleMember, accounts.ErrNotFound, ""},
		{"personal tenant", other.ID, u.ID, accounts.RoleMember, accounts.ErrNotFound, ""},
		{"unknown role", first.ID, other.ID, "owner", nil, "role"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			err := s.AddMember(ctx, tt.org, tt.user, tt.role)
			var ve *accounts.ValidationError
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("AddMember: got error %v, want %v", err, tt.wantErr)
			case tt.wantValidationFor != "" && (!errors.As(err, &ve) || ve.Field != tt.wantValidationFor):
				t.Errorf("AddMember: got error %v, want a ValidationError of %q", err, tt.wantValidationFor)
			}
		})
	}
	if got, err := s.ListMemberships(ctx, "nobody"); err != nil || len(got) != 0 {
		t.Errorf("ListMemberships(unknown user) = (%v, %v), want none: a refused AddMember wrote a membership", got, err)
	}
	if got, err := s.ListMemberships(ctx, other.ID); err != nil || len(got) != 1 {
		t.Errorf("ListMemberships(other) = (%v, %v), want its one membership", got, err)
	}
}
