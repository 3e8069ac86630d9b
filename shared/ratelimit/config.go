package ratelimit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/screenagent/backend/shared/accounts"
)

// The endpoint classes. Routes of one class share one counter per subject.
const (
	ClassInteract    = "interact"
	ClassResolve     = "resolve"
	ClassSession     = "session"
	ClassDebug       = "debug"
	ClassPreferences = "preferences"
	ClassAuthSession = "authSession"
	ClassRuns        = "runs"
)

// Environment variables (template parameters → environment). Empty means the default.
const (
	EnvInteract        = "RATE_LIMIT_INTERACT"
	EnvResolve         = "RATE_LIMIT_RESOLVE"
	EnvSession         = "RATE_LIMIT_SESSION"
	EnvDebug           = "RATE_LIMIT_DEBUG"
	EnvPreferences     = "RATE_LIMIT_PREFERENCES"
	EnvAuthSession     = "RATE_LIMIT_AUTH_SESSION"
	EnvRuns            = "RATE_LIMIT_RUNS"
	EnvTierMultipliers = "RATE_LIMIT_TIER_MULTIPLIERS"
)

// classes lists each class with its variable and its default requests per minute (§4.13).
var classes = []struct {
	class, env string
	perMinute  int
}{
	{ClassInteract, EnvInteract, 10},        // an LLM call per request
	{ClassResolve, EnvResolve, 30},          // retrieval, no LLM
	{ClassSession, EnvSession, 100},         // cheap reads
	{ClassDebug, EnvDebug, 100},             // cheap reads
	{ClassPreferences, EnvPreferences, 100}, // cheap reads and writes
	{ClassAuthSession, EnvAuthSession, 100}, // a token lookup
	// A run step is an LLM call like interact, but a run is driven by a client loop that asks
	// for the next step as soon as it has acted, for up to 150 steps. An LLM call takes about a
	// second or more, so one loop stays under 60 a minute: 60 lets a tenant's run go at full
	// speed while still bounding its LLM spend, where 10 would stall every run.
	{ClassRuns, EnvRuns, 60},
}

// defaultMultipliers are the tier factors of §4.13 (free ×1, pro ×5, enterprise ×20).
var defaultMultipliers = map[accounts.Tier]int{
	accounts.TierFree:       1,
	accounts.TierPro:        5,
	accounts.TierEnterprise: 20,
}

// Config is the limits of every class and the tier multipliers.
type Config struct {
	// PerMinute maps a class to the requests a subject may make in one minute at multiplier 1.
	PerMinute map[string]int
	// Multipliers maps a tier to the factor its limits are multiplied by.
	Multipliers map[accounts.Tier]int
}

// Limit is the per-minute limit of class for tier. A tier without a multiplier (an IP-keyed
// request has none) gets the base limit; an unknown class is 0.
func (c Config) Limit(class string, tier accounts.Tier) int {
	m, ok := c.Multipliers[tier]
	if !ok {
		m = 1
	}
	return c.PerMinute[class] * m
}

// ParseConfig reads the configuration through getenv (config.Config.Lookup at cold start). Limits are positive integers;
// RATE_LIMIT_TIER_MULTIPLIERS is "tier=factor" pairs separated by commas ("free=1,pro=5"), and
// tiers it leaves out keep their default. Every invalid value is reported, each naming its
// variable.
func ParseConfig(getenv func(string) string) (Config, error) {
	c := Config{PerMinute: map[string]int{}, Multipliers: map[accounts.Tier]int{}}
	var problems []string
	for _, cl := range classes {
		c.PerMinute[cl.class] = cl.perMinute
		v := strings.TrimSpace(getenv(cl.env))
		if v == "" {
			continue
		}
		n, err := positive(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %v", cl.env, err))
			continue
		}
		c.PerMinute[cl.class] = n
	}
	for tier, m := range defaultMultipliers {
		c.Multipliers[tier] = m
	}
	if v := strings.TrimSpace(getenv(EnvTierMultipliers)); v != "" {
		if err := parseMultipliers(v, c.Multipliers); err != nil {
			problems = append(problems, fmt.Sprintf("%s %v", EnvTierMultipliers, err))
		}
	}
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("rate limit configuration: %s", strings.Join(problems, "; "))
	}
	return c, nil
}

func parseMultipliers(v string, into map[accounts.Tier]int) error {
	for pair := range strings.SplitSeq(v, ",") {
		name, factor, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("must be tier=factor pairs separated by commas, got %q", pair)
		}
		tier, err := accounts.ParseTier(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("names an unknown tier %q (one of free, pro, enterprise)", strings.TrimSpace(name))
		}
		n, err := positive(strings.TrimSpace(factor))
		if err != nil {
			return fmt.Errorf("factor of %s %v", tier, err)
		}
		into[tier] = n
	}
	return nil
}

// positive parses a positive integer small enough that a limit times a multiplier cannot overflow.
func positive(v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("must be a positive integer, got %q", v)
	}
	return int(n), nil
}
