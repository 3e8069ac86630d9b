package runs

import (
	"testing"
	"time"
)

func ok() *Result   { return &Result{Success: true} }
func fail() *Result { return &Result{Success: false, Error: "not found"} }

func TestAnalyzeProgress(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		calls      []string
		results    []*Result
		want       Efficiency
		wantIssues int
	}{
		{"varied and successful", []string{"click a1", "type a2 x", "click a3", "scroll", "press Enter"}, []*Result{ok(), ok(), ok(), ok(), nil}, EfficiencyHigh, 0},
		{"two failures", []string{"click a1", "type a2 x", "click a3", "scroll", "press Enter"}, []*Result{fail(), ok(), fail(), ok(), nil}, EfficiencyMedium, 1},
		{"two observes", []string{"observe", "click a1", "observe", "scroll", "click a2"}, []*Result{ok(), ok(), ok(), ok(), nil}, EfficiencyMedium, 1},
		{"mostly failures", []string{"click a1", "type a2 x", "click a3", "scroll", "press Enter"}, []*Result{fail(), fail(), ok(), fail(), nil}, EfficiencyLow, 1},
		{"mostly observing", []string{"observe", "click a1", "observe", "scroll", "observe"}, []*Result{ok(), ok(), ok(), ok(), nil}, EfficiencyLow, 1},
		{"one tool on ever new targets: a form filled field by field", []string{"type a1 x", "type a2 y", "type a3 z", "type a4 w", "type a5 v"}, []*Result{ok(), ok(), ok(), ok(), nil}, EfficiencyHigh, 0},
		{"the same call on an unchanged page", []string{"click a1", "click a1", "click a1", "click a1", "scroll"}, []*Result{ok(), ok(), ok(), ok(), nil}, EfficiencyLow, 1},
		{"only the last five count", []string{"observe", "observe", "click a1", "type a2 x", "click a3", "scroll", "press Enter"}, []*Result{fail(), fail(), ok(), ok(), ok(), ok(), nil}, EfficiencyHigh, 0},
	}
	now := time.Unix(1737292805, 0)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := analyzeProgress(steps(tc.calls...), tc.results, now)
			if r.Efficiency != tc.want || len(r.Issues) != tc.wantIssues || len(r.Suggestions) != tc.wantIssues {
				t.Errorf("analyzeProgress() = %s with issues %q and suggestions %q, want %s with %d of each", r.Efficiency, r.Issues, r.Suggestions, tc.want, tc.wantIssues)
			}
			if r.StepNumber != len(tc.calls) || r.StepsAnalyzed != 5 || r.ShouldAdjust != (tc.wantIssues > 0) || !r.CreatedAt.Equal(now) {
				t.Errorf("analyzeProgress() = step %d analysed %d adjust %v at %v, want step %d analysed 5 adjust %v", r.StepNumber, r.StepsAnalyzed, r.ShouldAdjust, r.CreatedAt, len(tc.calls), tc.wantIssues > 0)
			}
		})
	}
}

func TestAnalyzeProgressCounts(t *testing.T) {
	t.Parallel()
	r := analyzeProgress(steps("observe", "click a1", "observe", "type a2 x", "scroll"), []*Result{ok(), fail(), ok(), ok(), nil}, time.Now())
	if r.Observes != 2 || r.Errors != 1 || r.Successes != 3 || r.ActionDiversity != 0.8 {
		t.Errorf("counts = %d observes, %d errors, %d successes, diversity %v; want 2, 1, 3, 0.8", r.Observes, r.Errors, r.Successes, r.ActionDiversity)
	}
}

func TestDueReflection(t *testing.T) {
	t.Parallel()
	cases := []struct {
		step int
		last []int
		want bool
	}{
		{4, nil, false}, {5, nil, true}, {9, []int{5}, false}, {10, []int{5}, true},
		// Step 10 came from an answer: the next decided step catches up.
		{11, []int{5}, true}, {15, []int{11}, false}, {16, []int{11}, true},
	}
	for _, tc := range cases {
		var rs []Reflection
		for _, s := range tc.last {
			rs = append(rs, Reflection{StepNumber: s})
		}
		if got := dueReflection(tc.step, rs); got != tc.want {
			t.Errorf("dueReflection(%d, after %v) = %v, want %v", tc.step, tc.last, got, tc.want)
		}
	}
}
