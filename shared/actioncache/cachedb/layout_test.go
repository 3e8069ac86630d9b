package cachedb

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/actioncache"
)

func fullEntry() actioncache.Entry {
	return actioncache.Entry{
		TenantID: "ten-a", Key: "k1", Task: "order socks", Runs: 2, Revision: "rev-1", LearnedFrom: "task-9",
		Steps: []actioncache.Step{{Page: "p1", Part: actioncache.Part{Action: "click(3)"}}},
		// The stored times: the update to the nanosecond, the expiry in epoch seconds.
		UpdatedAt: time.Date(2026, 3, 1, 10, 0, 0, 500, time.UTC), ExpiresAt: time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC),
	}
}

// TestStoredAttributeNames pins what an entry is stored as: entries already in the table must
// still read, so the record's attribute names change only with a migration. The steps are one
// JSON string, written and read whole.
func TestStoredAttributeNames(t *testing.T) {
	it, err := toItem(fullEntry())
	if err != nil {
		t.Fatal(err)
	}
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields("PK SK expiresAt learnedFrom revision runs steps task updatedAt")
	if got := dynamotest.AttributeNames(av); !slices.Equal(got, want) {
		t.Errorf("an entry is stored as %v, want %v", got, want)
	}
	if it.PK != "TENANT#ten-a#CACHE#k1" || it.SK != "CACHE" {
		t.Errorf("an entry is keyed %s / %s, want TENANT#ten-a#CACHE#k1 / CACHE", it.PK, it.SK)
	}
}

// TestRecordRoundTrip: an entry reads back as the entry it was stored from, and a corrupt stored
// time is an error rather than a zero time.
func TestRecordRoundTrip(t *testing.T) {
	e := fullEntry()
	it, err := toItem(e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := toEntry(e.TenantID, e.Key, it)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		t.Errorf("read back as %+v, want %+v", got, e)
	}
	it.UpdatedAt = "yesterday"
	if _, err := toEntry(e.TenantID, e.Key, it); err == nil {
		t.Error("an entry with a corrupt updatedAt read without error, want one")
	}
}
