package accounts

import (
	"errors"
	"testing"
)

func TestParseTier(t *testing.T) {
	tests := []struct {
		in   string
		want Tier
		ok   bool
	}{
		{"free", TierFree, true},
		{"pro", TierPro, true},
		{"enterprise", TierEnterprise, true},
		{"", "", false},
		{"Pro", "", false},
		{" pro", "", false},
		{"premium", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTier(tt.in)
			if tt.ok {
				if err != nil || got != tt.want {
					t.Errorf("ParseTier(%q) = (%q, %v), want (%q, nil)", tt.in, got, err, tt.want)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "tier" || got != "" {
				t.Errorf("ParseTier(%q) = (%q, %v), want (\"\", a tier ValidationError)", tt.in, got, err)
			}
		})
	}
}
