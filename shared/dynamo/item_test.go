package dynamo

import (
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestParseTime(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 500, time.UTC)
	tests := []struct {
		name, in string
		want     time.Time
		err      bool
	}{
		{"absent", "", time.Time{}, false},
		{"stored", t0.Format(time.RFC3339Nano), t0, false},
		{"sortable", Sortable(t0), t0, false},
		{"corrupt", "yesterday", time.Time{}, true},
	}
	for _, tc := range tests {
		got, err := ParseTime(tc.in)
		if !got.Equal(tc.want) || (err != nil) != tc.err {
			t.Errorf("%s: ParseTime(%q) = %v, %v; want %v, error %v", tc.name, tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestSortableOrdersAsTime(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 5, 0, time.UTC)
	for _, later := range []time.Time{t0.Add(100 * time.Millisecond), t0.Add(time.Nanosecond), t0.Add(time.Second).In(time.FixedZone("x", 3600))} {
		if a, b := Sortable(t0), Sortable(later); a >= b {
			t.Errorf("Sortable(%v) = %q, not before Sortable(%v) = %q", t0, a, later, b)
		}
	}
}

func TestKinds(t *testing.T) {
	kinds := Kinds{"TASK": "tasks", "STEP#": "steps", "STEP#X#": "extra steps", "IDEM": "idempotencyRecords"}
	tests := []struct {
		sk, want string
		ok       bool
	}{
		{"TASK", "tasks", true},
		{"STEP#000001", "steps", true},
		{"IDEM", "idempotencyRecords", true},
		{"TASKS", "", false},
		{"IDEM#x", "", false},
		{"STEP", "", false},
		{"STEP#", "steps", true},
		{"STEP#X#1", "extra steps", true},
	}
	for _, tc := range tests {
		if got, ok := kinds.Of(tc.sk); got != tc.want || ok != tc.ok {
			t.Errorf("Of(%q) = %q, %v; want %q, %v", tc.sk, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAttributesOf(t *testing.T) {
	item := map[string]types.AttributeValue{"expiresAt": Num(1700000000), "RetentionPK": Str("EXPIRES#3"), "odd": Str("12")}
	tests := []struct {
		name  string
		gotN  int64
		wantN int64
		gotS  string
		wantS string
	}{
		{"present", Int64Of(item, "expiresAt"), 1700000000, StringOf(item, "RetentionPK"), "EXPIRES#3"},
		{"absent", Int64Of(item, "gone"), 0, StringOf(item, "gone"), ""},
		{"another type", Int64Of(item, "odd"), 0, StringOf(item, "expiresAt"), ""},
	}
	for _, tc := range tests {
		if tc.gotN != tc.wantN || tc.gotS != tc.wantS {
			t.Errorf("%s: got %d and %q, want %d and %q", tc.name, tc.gotN, tc.gotS, tc.wantN, tc.wantS)
		}
	}
}

func TestConvertKeepsNilApartFromEmpty(t *testing.T) {
	double := func(n int) int64 { return int64(2 * n) }
	tests := []struct {
		name string
		in   []int
		want []int64
	}{
		{"nil", nil, nil},
		{"empty", []int{}, []int64{}},
		{"values", []int{1, 2}, []int64{2, 4}},
	}
	for _, tc := range tests {
		got := Convert(tc.in, double)
		if (got == nil) != (tc.want == nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func TestOptional(t *testing.T) {
	double := func(n int) int64 { return int64(2 * n) }
	if got := Optional(nil, double); got != nil {
		t.Errorf("Optional(nil) = %v, want nil", *got)
	}
	n := 3
	if got := Optional(&n, double); got == nil || *got != 6 {
		t.Errorf("Optional(&3) = %v, want 6", got)
	}
}
