package accounts

// Tier is a tenant's plan; rate limits are multiplied per tier.
type Tier string

// The tiers.
const (
	TierFree       Tier = "free"
	TierPro        Tier = "pro"
	TierEnterprise Tier = "enterprise"
)

// ParseTier accepts exactly the stored spelling of a tier, so an unknown or misspelled plan is
// an error rather than silently becoming some default.
func ParseTier(s string) (Tier, error) {
	switch t := Tier(s); t {
	case TierFree, TierPro, TierEnterprise:
		return t, nil
	}
	return "", invalid("tier", "must be one of free, pro, enterprise")
}

// Identity is whom a verified access token belongs to. TenantID scopes every query of the
// request; it comes only from here, never from the request itself (SERVER_SIDE_AGENT_ARCH.md §3.2).
type Identity struct {
	UserID     string
	TenantID   string
	TenantName string
	Tier       Tier
	Email      string
	Name       string
}
