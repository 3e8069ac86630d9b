package expiry

import (
	"testing"
	"time"
)

func TestKeys(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 999, time.UTC)
	pk, sk := Keys("TENANT#t#TASK#1", at)
	if pk2, sk2 := Keys("TENANT#t#TASK#1", at); pk2 != pk || sk2 != sk {
		t.Errorf("Keys is not deterministic: got %q/%q then %q/%q", pk, sk, pk2, sk2)
	}
	if sk != "001772366400" {
		t.Errorf("sort key: got %q, want the epoch seconds zero-padded to 12 digits", sk)
	}
	shards := map[string]bool{}
	for i := range 64 {
		p, _ := Keys("TENANT#t#TASK#"+string(rune('a'+i%26))+string(rune('a'+i/26)), at)
		shards[p] = true
	}
	if len(shards) != Shards {
		t.Errorf("64 keys fell in %d partitions %v, want all %d", len(shards), shards, Shards)
	}
	// String order is time order, across a change in the number of digits of the epoch.
	if SortKey(time.Unix(999_999_999, 0)) >= SortKey(time.Unix(1_000_000_000, 0)) {
		t.Error("SortKey does not sort as time across a digit boundary")
	}
}

func TestActiveSortKey(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	if got, want := ActiveSortKey(at, "t", "s"), "2026-03-01T11:00:00.000000000Z#t#s"; got != want {
		t.Errorf("got %q, want %q (UTC, all nine fractional digits)", got, want)
	}
}
