package accounts

import (
	"errors"
	"testing"
	"time"
)

func TestChooseTenant(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	two := []Membership{
		{TenantID: "org-new", CreatedAt: t0.Add(time.Hour)},
		{TenantID: "org-old", CreatedAt: t0},
	}
	cases := []struct {
		name        string
		memberships []Membership
		requested   string
		want        string
		wantErr     error
	}{
		{"no organization: personal tenant", nil, "", "u1", nil},
		{"one organization: that one", two[:1], "", "org-new", nil},
		{"several: the oldest membership", two, "", "org-old", nil},
		{"several: the requested one", two, "org-new", "org-new", nil},
		{"personal tenant on request", two, "u1", "u1", nil},
		{"not a member", two, "org-other", "", ErrNotAMember},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ChooseTenant("u1", tc.memberships, tc.requested)
			if got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("ChooseTenant() = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestTokenExpired(t *testing.T) {
	exp := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	r := TokenRecord{ExpiresAt: exp}
	cases := map[time.Time]bool{exp.Add(-time.Second): false, exp: true, exp.Add(time.Second): true}
	for now, want := range cases {
		if got := r.Expired(now); got != want {
			t.Errorf("Expired(%v) = %v, want %v", now, got, want)
		}
	}
}
