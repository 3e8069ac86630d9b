package ratelimit

import (
	"maps"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseConfig(t *testing.T) {
	defaults := map[string]int{
		ClassInteract: 10, ClassResolve: 30, ClassSession: 100, ClassDebug: 100,
		ClassPreferences: 100, ClassAuthSession: 100, ClassRuns: 60,
	}
	with := func(class string, n int) map[string]int {
		m := maps.Clone(defaults)
		m[class] = n
		return m
	}
	defaultTiers := map[accounts.Tier]int{accounts.TierFree: 1, accounts.TierPro: 5, accounts.TierEnterprise: 20}
	cases := []struct {
		name      string
		env       map[string]string
		wantLimit map[string]int
		wantTiers map[accounts.Tier]int
	}{
		{"empty is the defaults", nil, defaults, defaultTiers},
		{"blank is the default", map[string]string{EnvInteract: "  "}, defaults, defaultTiers},
		{"interact", map[string]string{EnvInteract: "7"}, with(ClassInteract, 7), defaultTiers},
		{"resolve", map[string]string{EnvResolve: "31"}, with(ClassResolve, 31), defaultTiers},
		{"session", map[string]string{EnvSession: "101"}, with(ClassSession, 101), defaultTiers},
		{"debug", map[string]string{EnvDebug: "102"}, with(ClassDebug, 102), defaultTiers},
		{"preferences", map[string]string{EnvPreferences: "103"}, with(ClassPreferences, 103), defaultTiers},
		{"auth session", map[string]string{EnvAuthSession: "104"}, with(ClassAuthSession, 104), defaultTiers},
		{"runs", map[string]string{EnvRuns: "61"}, with(ClassRuns, 61), defaultTiers},
		{"all tiers", map[string]string{EnvTierMultipliers: "free=2, pro=6 ,enterprise=30"}, defaults,
			map[accounts.Tier]int{accounts.TierFree: 2, accounts.TierPro: 6, accounts.TierEnterprise: 30}},
		{"tiers left out keep their default", map[string]string{EnvTierMultipliers: "pro=10"}, defaults,
			map[accounts.Tier]int{accounts.TierFree: 1, accounts.TierPro: 10, accounts.TierEnterprise: 20}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig(envOf(tc.env))
			if err != nil {
				t.Fatalf("ParseConfig() error = %v, want nil", err)
			}
			if !maps.Equal(c.PerMinute, tc.wantLimit) {
				t.Errorf("got limits %v, want %v", c.PerMinute, tc.wantLimit)
			}
			if !maps.Equal(c.Multipliers, tc.wantTiers) {
				t.Errorf("got multipliers %v, want %v", c.Multipliers, tc.wantTiers)
			}
		})
	}
}

func TestParseConfigInvalid(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		wantErr []string
	}{
		{"not a number", map[string]string{EnvInteract: "ten"}, []string{`RATE_LIMIT_INTERACT must be a positive integer, got "ten"`}},
		{"zero", map[string]string{EnvResolve: "0"}, []string{"RATE_LIMIT_RESOLVE"}},
		{"negative", map[string]string{EnvSession: "-5"}, []string{"RATE_LIMIT_SESSION"}},
		{"fraction", map[string]string{EnvDebug: "1.5"}, []string{"RATE_LIMIT_DEBUG"}},
		{"too large to multiply", map[string]string{EnvPreferences: "99999999999"}, []string{"RATE_LIMIT_PREFERENCES"}},
		{"auth session", map[string]string{EnvAuthSession: "x"}, []string{"RATE_LIMIT_AUTH_SESSION"}},
		{"runs", map[string]string{EnvRuns: "x"}, []string{"RATE_LIMIT_RUNS"}},
		{"multiplier without a factor", map[string]string{EnvTierMultipliers: "pro"}, []string{"RATE_LIMIT_TIER_MULTIPLIERS must be tier=factor pairs"}},
		{"unknown tier", map[string]string{EnvTierMultipliers: "gold=3"}, []string{`RATE_LIMIT_TIER_MULTIPLIERS names an unknown tier "gold"`}},
		{"bad factor", map[string]string{EnvTierMultipliers: "pro=0"}, []string{`RATE_LIMIT_TIER_MULTIPLIERS factor of pro must be a positive integer, got "0"`}},
		{"trailing comma", map[string]string{EnvTierMultipliers: "pro=5,"}, []string{"RATE_LIMIT_TIER_MULTIPLIERS"}},
		{"problems are reported together", map[string]string{EnvInteract: "x", EnvRuns: "y", EnvTierMultipliers: "gold=1"},
			[]string{"RATE_LIMIT_INTERACT", "RATE_LIMIT_RUNS", "RATE_LIMIT_TIER_MULTIPLIERS"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig(envOf(tc.env))
			if err == nil {
				t.Fatalf("ParseConfig() error = nil, want one naming %v", tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ParseConfig() error = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestConfigLimit(t *testing.T) {
	c, err := ParseConfig(envOf(map[string]string{EnvInteract: "2"}))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		class string
		tier  accounts.Tier
		want  int
	}{
		{ClassInteract, accounts.TierFree, 2},
		{ClassInteract, accounts.TierPro, 10},
		{ClassInteract, accounts.TierEnterprise, 40},
		{ClassResolve, accounts.TierPro, 150},
		{ClassSession, "", 100}, // keyed by IP: no tier
		{"unknown", accounts.TierPro, 0},
	}
	for _, tc := range cases {
		if got := c.Limit(tc.class, tc.tier); got != tc.want {
			t.Errorf("Limit(%q, %q) = %d, want %d", tc.class, tc.tier, got, tc.want)
		}
	}
}
