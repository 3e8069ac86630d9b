// Package expiry is the key layout of the Retention index, the sparse index through which the
// retention cleanup finds what has expired without reading whole tables.
//
// The Tasks, Sessions and Messages tables each have a global secondary index named Index, keyed
// by RetentionPK and RetentionSK and projecting only keys. An item carries those keys when it
// has a retention of its own that nothing else enforces:
//
//	parents          ended tasks and sessions (sort key TASK or SESSION; RUN for ended runs)
//	independent      debug entries, idempotency records, page snapshots, any later record kind
//
// The cleanup deletes a parent with every item of its partition, so children that share their
// parent's lifetime (steps, messages, a run's history) carry no keys. Active parents are not in
// the expiry partitions either: the cleanup finds them by last update (the Tasks table's GSI2
// TASKS#active and RUNS#active partitions, the Sessions table's SESSIONS#active partition of this
// index), interrupts the idle ones and files them here.
//
// An entry's partition is one of Shards partitions chosen by a hash of the item's PK, so the
// index takes Shards times the write rate of one partition; its sort key is the expiry in
// fixed-width epoch seconds, so "RetentionSK <= now" is exactly what has expired. The index is
// the cleanup's queue: an item deleted leaves it, so the next run starts where the last stopped.
package expiry

import (
	"fmt"
	"hash/fnv"
	"time"
)

// Index is the name of the Retention index on every table that has one.
const Index = "Retention"

// Shards is the number of expiry partitions. Changing it strands the entries of the partitions
// that disappear, so it is fixed.
const Shards = 4

// TimeLayout is the fixed-width UTC time of the active partitions' sort keys, which start with
// the item's last update so that string order is time order.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// Keys returns the index keys of the item with partition key pk expiring at t.
func Keys(pk string, t time.Time) (partition, sort string) {
	h := fnv.New32a()
	h.Write([]byte(pk))
	return Partition(int(h.Sum32() % Shards)), SortKey(t)
}

// Partition is the expiry partition of a shard in [0, Shards).
func Partition(shard int) string { return fmt.Sprintf("EXPIRES#%d", shard) }

// SortKey is an expiry as a sort key: epoch seconds, zero-padded to 12 digits.
func SortKey(t time.Time) string { return fmt.Sprintf("%012d", t.Unix()) }

// ActiveSortKey is the sort key of an active item in an active partition: its last update, then
// the parts that make it unique.
func ActiveSortKey(updatedAt time.Time, parts ...string) string {
	s := updatedAt.UTC().Format(TimeLayout)
	for _, p := range parts {
		s += "#" + p
	}
	return s
}
