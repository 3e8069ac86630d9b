package retention

import (
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	t.Run("defaults are §4.15's", func(t *testing.T) {
		c, err := ParseConfig(env(nil))
		if err != nil {
			t.Fatal(err)
		}
		checks := []struct {
			name      string
			got, want time.Duration
		}{
			{"tasks finished", c.Tasks.Finished, 90 * day},
			{"sessions finished", c.Chat.Finished, 90 * day},
			{"tasks interrupted", c.Tasks.Interrupted, 30 * day},
			{"sessions interrupted", c.Chat.Interrupted, 30 * day},
			{"snapshots", c.Chat.Snapshot, 30 * day},
			{"debug", c.Tasks.Debug, 7 * day},
			{"records", c.Tasks.Records, 90 * day},
			{"idle", c.IdleAfter, 24 * time.Hour},
		}
		for _, ch := range checks {
			if ch.got != ch.want {
				t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
			}
		}
	})
	t.Run("every variable sets its periods", func(t *testing.T) {
		c, err := ParseConfig(env(map[string]string{
			EnvFinishedDays: "60", EnvInterruptedDays: " 10 ", EnvSnapshotDays: "5", EnvDebugDays: "2",
			EnvRecordsDays: "45", EnvIdleMinutes: "90",
		}))
		if err != nil {
			t.Fatal(err)
		}
		if c.Tasks.Finished != 60*day || c.Chat.Finished != 60*day || c.Tasks.Interrupted != 10*day || c.Chat.Interrupted != 10*day ||
			c.Chat.Snapshot != 5*day || c.Tasks.Debug != 2*day || c.Tasks.Records != 45*day || c.IdleAfter != 90*time.Minute {
			t.Errorf("got %+v, want the periods of the environment", c)
		}
	})
	bad := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"not a number", map[string]string{EnvDebugDays: "a week"}, []string{EnvDebugDays}},
		{"zero", map[string]string{EnvFinishedDays: "0"}, []string{EnvFinishedDays}},
		{"negative and too long, both named", map[string]string{EnvSnapshotDays: "-1", EnvRecordsDays: "99999"}, []string{EnvSnapshotDays, EnvRecordsDays}},
		{"idle as long as an active task lives", map[string]string{EnvIdleMinutes: "129600"}, []string{EnvIdleMinutes}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig(env(tc.env))
			if err == nil {
				t.Fatal("got nil, want an error")
			}
			for _, name := range tc.want {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("got %q, want it to name %s", err, name)
				}
			}
		})
	}
}
