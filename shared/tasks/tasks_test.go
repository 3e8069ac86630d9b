package tasks

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestMemoryKeepsTheLatestWithinItsBounds(t *testing.T) {
	cases := []struct {
		name        string
		steps       int
		wantRecent  int
		wantEarlier int
		wantFirst   int
	}{
		{"fewer than the bound", 3, 3, 0, 0},
		{"exactly the bound", MemorySteps, MemorySteps, 0, 0},
		{"past the bound", MemorySteps + 5, MemorySteps, 5, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m Memory
			for i := range tc.steps {
				m.Remember(Brief{Index: i, Action: "click(1)"})
			}
			if len(m.Recent) != tc.wantRecent || m.Earlier != tc.wantEarlier {
				t.Fatalf("got %d recent and %d earlier, want %d and %d", len(m.Recent), m.Earlier, tc.wantRecent, tc.wantEarlier)
			}
			if m.Recent[0].Index != tc.wantFirst {
				t.Errorf("oldest kept step: got %d, want %d", m.Recent[0].Index, tc.wantFirst)
			}
			if last := m.Last(); last == nil || last.Index != tc.steps-1 {
				t.Errorf("Last: got %+v, want step %d", last, tc.steps-1)
			}
		})
	}
}

func TestRememberShortensLongThoughts(t *testing.T) {
	cases := []struct {
		name, thought string
		wantRunes     int
		wantEllipsis  bool
	}{
		{"short stays whole", "Clicking the button.", 20, false},
		{"at the bound stays whole", strings.Repeat("é", briefThought), briefThought, false},
		{"past the bound is cut with an ellipsis", strings.Repeat("é", briefThought+50), briefThought, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m Memory
			m.Remember(Brief{Thought: tc.thought})
			got := m.Last().Thought
			if n := utf8.RuneCountInString(got); n != tc.wantRunes {
				t.Errorf("got %d runes, want %d", n, tc.wantRunes)
			}
			if strings.HasSuffix(got, "…") != tc.wantEllipsis {
				t.Errorf("got %q, want an ellipsis: %v", got, tc.wantEllipsis)
			}
		})
	}
}

func TestEmptyMemoryHasNoLastStep(t *testing.T) {
	var m Memory
	if got := m.Last(); got != nil {
		t.Errorf("got %+v, want nil", got)
	}
}

func TestSearchesAndMessagesKeepTheLatest(t *testing.T) {
	var m Memory
	for i := range MemorySearches + 2 {
		m.AddSearch(SearchNote{Query: string(rune('a' + i))})
	}
	if len(m.Searches) != MemorySearches || m.Searches[0].Query != "c" {
		t.Errorf("searches: got %d starting with %q, want %d starting with \"c\"", len(m.Searches), m.Searches[0].Query, MemorySearches)
	}
	for i := range MemoryMessages + 3 {
		m.AddMessage(UserMessage{Step: i})
	}
	if len(m.Messages) != MemoryMessages || m.Messages[0].Step != 3 {
		t.Errorf("messages: got %d starting at step %d, want %d starting at step 3", len(m.Messages), m.Messages[0].Step, MemoryMessages)
	}
}

func TestPlanCurrentStep(t *testing.T) {
	steps := []PlanStep{{Description: "open the form"}, {Description: "submit"}}
	cases := []struct {
		name string
		plan *Plan
		want string
	}{
		{"no plan", nil, ""},
		{"first step", &Plan{Steps: steps, Current: 0}, "open the form"},
		{"last step", &Plan{Steps: steps, Current: 1}, "submit"},
		{"done", &Plan{Steps: steps, Current: 2}, ""},
		{"negative", &Plan{Steps: steps, Current: -1}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if s := tc.plan.CurrentStep(); s != nil {
				got = s.Description
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStatusesAndRetention(t *testing.T) {
	r := DefaultRetention
	cases := []struct {
		status       Status
		wantFinished bool
		wantKept     time.Duration
	}{
		{StatusCompleted, true, r.Finished},
		{StatusFailed, true, r.Finished},
		{StatusInterrupted, false, r.Interrupted},
		{StatusActive, false, r.Active},
	}
	for _, tc := range cases {
		t.Run(string(tc.status), func(t *testing.T) {
			if got := tc.status.Finished(); got != tc.wantFinished {
				t.Errorf("Finished: got %v, want %v", got, tc.wantFinished)
			}
			if got := r.For(tc.status); got != tc.wantKept {
				t.Errorf("kept: got %v, want %v", got, tc.wantKept)
			}
		})
	}
}

func TestReportFailed(t *testing.T) {
	cases := []struct {
		name   string
		report *Report
		want   bool
	}{
		{"no report", nil, false},
		{"success", &Report{Status: "success"}, false},
		{"failure", &Report{Status: "failure"}, true},
	}
	for _, tc := range cases {
		if got := tc.report.Failed(); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
