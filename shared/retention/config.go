// Package retention keeps stored data within its retention (SERVER_SIDE_AGENT_ARCH.md §4.15):
// the policy every store applies when it writes (Config, read once from the environment), and
// the scheduled cleanup (Cleaner) that interrupts abandoned tasks and sessions and deletes what
// has expired before DynamoDB's TTL gets to it.
package retention

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/tasks"
)

// Environment variables of the policy (template parameters of the same meaning). Unset means
// the default.
const (
	// EnvFinishedDays: completed and failed tasks and sessions (90).
	EnvFinishedDays = "RETENTION_FINISHED_DAYS"
	// EnvInterruptedDays: interrupted tasks and sessions (30).
	EnvInterruptedDays = "RETENTION_INTERRUPTED_DAYS"
	// EnvSnapshotDays: page snapshots (30).
	EnvSnapshotDays = "RETENTION_SNAPSHOT_DAYS"
	// EnvDebugDays: debug entries (7).
	EnvDebugDays = "RETENTION_DEBUG_DAYS"
	// EnvRecordsDays: verification and correction records (90).
	EnvRecordsDays = "RETENTION_RECORDS_DAYS"
	// EnvIdleMinutes: how long an active task or session may go without a step before the
	// cleanup interrupts it (1440, a day).
	EnvIdleMinutes = "RETENTION_IDLE_MINUTES"
)

// Config is the retention policy. Stores take their part (Tasks, Chat) at wiring; the cleanup
// uses all of it.
type Config struct {
	Tasks tasks.Retention
	Chat  chat.Retention
	// IdleAfter is how long an active task or session may go without a step before the cleanup
	// interrupts it.
	IdleAfter time.Duration
}

const day = 24 * time.Hour

// DefaultConfig is §4.15's policy, with tasks and sessions idle for a day interrupted.
func DefaultConfig() Config {
	return Config{Tasks: tasks.DefaultRetention, Chat: chat.DefaultRetention(), IdleAfter: day}
}

// ParseConfig reads the policy through getenv (config.Config.Lookup at cold start): every variable set must be a whole number of at
// least 1, and the idle threshold must stay below the provisional lifetime of active data, or
// active tasks would expire before they could be interrupted. The error names every bad variable.
func ParseConfig(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	var problems []string
	read := func(name string, unit time.Duration, set ...*time.Duration) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || time.Duration(n) > maxPeriod/unit {
			problems = append(problems, fmt.Sprintf("%s must be a whole number from 1 to %d, got %q", name, maxPeriod/unit, v))
			return
		}
		for _, d := range set {
			*d = time.Duration(n) * unit
		}
	}
	read(EnvFinishedDays, day, &c.Tasks.Finished, &c.Chat.Finished)
	read(EnvInterruptedDays, day, &c.Tasks.Interrupted, &c.Chat.Interrupted)
	read(EnvSnapshotDays, day, &c.Chat.Snapshot)
	read(EnvDebugDays, day, &c.Tasks.Debug)
	read(EnvRecordsDays, day, &c.Tasks.Records)
	read(EnvIdleMinutes, time.Minute, &c.IdleAfter)
	if len(problems) == 0 && (c.IdleAfter >= c.Tasks.Active || c.IdleAfter >= c.Chat.Active) {
		problems = append(problems, fmt.Sprintf("%s must be under %v, the lifetime of an active task or session",
			EnvIdleMinutes, min(c.Tasks.Active, c.Chat.Active)))
	}
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("configuration: %s", strings.Join(problems, "; "))
	}
	return c, nil
}

// maxPeriod bounds every period: ten years is already more than any retention means.
const maxPeriod = 3650 * day
