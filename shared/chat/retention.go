package chat

import (
	"errors"
	"time"
)

// Retention is how long chat data is kept (SERVER_SIDE_AGENT_ARCH.md §4.15). Expiry is computed
// on every write from the status being written, so it is always current without a sweep.
type Retention struct {
	// Active is provisional: a session still active expires this long after its last update,
	// refreshed by every append. The retention cleanup marks idle sessions interrupted long before.
	Active time.Duration
	// Finished applies to completed and failed sessions, from when they ended.
	Finished time.Duration
	// Interrupted applies to interrupted sessions, from when they were interrupted.
	Interrupted time.Duration
	// Snapshot applies to a page snapshot from when it was stored, never past its session.
	Snapshot time.Duration
}

const day = 24 * time.Hour

// DefaultRetention is §4.15's policy: 90 days after completion or failure, 30 after an
// interruption, snapshots 30 days, and 90 days of inactivity for sessions left active.
func DefaultRetention() Retention {
	return Retention{Active: 90 * day, Finished: 90 * day, Interrupted: 30 * day, Snapshot: 30 * day}
}

// Validate refuses periods that would expire data as it is written.
func (r Retention) Validate() error {
	if r.Active <= 0 || r.Finished <= 0 || r.Interrupted <= 0 || r.Snapshot <= 0 {
		return errors.New("chat retention: every period must be positive")
	}
	return nil
}

// SessionExpiry is when a session (and the messages written with it) expires when it is written
// with status at time at. Expiry is whole seconds, the unit of the tables' TTL.
func (r Retention) SessionExpiry(status Status, at time.Time) time.Time {
	d := r.Active
	switch status {
	case StatusCompleted, StatusFailed:
		d = r.Finished
	case StatusInterrupted:
		d = r.Interrupted
	}
	return at.Add(d).UTC().Truncate(time.Second)
}

// SnapshotExpiry is when a snapshot stored at time at expires, given its session's expiry: a
// snapshot never outlives the session that references it.
func (r Retention) SnapshotExpiry(at, sessionExpiry time.Time) time.Time {
	exp := at.Add(r.Snapshot).UTC().Truncate(time.Second)
	if sessionExpiry.Before(exp) {
		return sessionExpiry
	}
	return exp
}
