package actioncache

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestStoredStepFieldNames pins the JSON names of what an entry stores of its steps (cachedb
// keeps them as one JSON string): renaming a field would silently stop older entries from
// reading back.
func TestStoredStepFieldNames(t *testing.T) {
	t.Parallel()
	target := &Target{Signature: 1, Tag: "button"}
	step := Step{
		Page: "p", Part: Part{Action: "a", Name: "n", Kind: Completes, Target: target, FromTask: &Span{Start: 1, Len: 2}},
		Rest:   []Part{{Action: "b"}},
		Answer: &Answer{Parts: []string{"x", "y", "z"}, Facts: []Fact{{Before: "b", After: "a", Prev: "p", Value: "v"}}},
		Next:   "n", NextShape: "s", Skip: "why", AfterFailure: true,
	}
	for _, tc := range []struct {
		name string
		v    any
		want []string
	}{
		{"step", step, []string{"action", "afterFailure", "answer", "fromTask", "kind", "name", "next", "nextShape", "page", "rest", "skip", "target"}},
		{"target", *target, []string{"sig", "tag"}},
		{"span", Span{Start: 1, Len: 2}, []string{"len", "start"}},
		{"answer", *step.Answer, []string{"facts", "parts"}},
		{"fact", step.Answer.Facts[0], []string{"after", "before", "prev", "value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err != nil {
				t.Fatal(err)
			}
			var got []string
			for k := range fields {
				got = append(got, k)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("stored fields = %v, want %v", got, tc.want)
			}
		})
	}
}
