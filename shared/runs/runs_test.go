package runs

import (
	"fmt"
	"testing"
	"time"
)

func TestToolStringAndParameters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tool       Tool
		wantString string
		wantParams string
	}{
		{Tool{Name: ToolObserve}, "observe", "map[]"},
		{Tool{Name: ToolClick, ID: "agent-1"}, `click {"id":"agent-1"}`, "map[id:agent-1]"},
		{Tool{Name: ToolType, ID: "a", Text: `say "hi"`, Submit: true}, `type {"id":"a","text":"say \"hi\"","submit":true}`, `map[id:a submit:true text:say "hi"]`},
		{Tool{Name: ToolScroll, DeltaY: -250.5}, `scroll {"deltaY":-250.5}`, "map[deltaY:-250.5]"},
		{Tool{Name: ToolNavigate, URL: "https://a.example"}, `navigate {"url":"https://a.example"}`, "map[url:https://a.example]"},
		{Tool{Name: ToolPress, Key: "Enter"}, `press {"key":"Enter"}`, "map[key:Enter]"},
	}
	for _, tc := range cases {
		if got := tc.tool.String(); got != tc.wantString {
			t.Errorf("String() = %s, want %s", got, tc.wantString)
		}
		if got := fmt.Sprint(tc.tool.Parameters()); got != tc.wantParams {
			t.Errorf("Parameters() = %s, want %s", got, tc.wantParams)
		}
	}
}

func TestObservation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		r    Result
		want string
	}{
		{Result{Success: true}, "Success"},
		{Result{Success: true, Message: "Clicked successfully"}, "Clicked successfully"},
		{Result{Success: false, Error: "Element not found"}, "Failed: Element not found"},
		{Result{Success: false, Message: "The user declined."}, "The user declined."},
		{Result{Success: false}, "Failed"},
	}
	for _, tc := range cases {
		if got := tc.r.Observation(); got != tc.want {
			t.Errorf("%+v.Observation() = %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestRetention(t *testing.T) {
	t.Parallel()
	r := DefaultRetention
	at := time.Unix(1737292800, 0)
	for _, s := range []Status{StatusCreated, StatusRunning, StatusWaitingUser} {
		if got := r.ExpiresAt(s, at); !got.Equal(at.Add(time.Hour)) {
			t.Errorf("ExpiresAt(%s) = %v, want an hour later", s, got)
		}
	}
	for _, s := range []Status{StatusCompleted, StatusError, StatusCancelled} {
		if got := r.ExpiresAt(s, at); !got.Equal(at.Add(90 * 24 * time.Hour)) {
			t.Errorf("ExpiresAt(%s) = %v, want 90 days later", s, got)
		}
	}
	// An entry written at step 1 outlives a run that then idles an hour before each of its other
	// changes and is kept 90 days after the last.
	if got, want := r.EntryLifetime(150), 90*24*time.Hour+152*time.Hour; got != want {
		t.Errorf("EntryLifetime(150) = %v, want %v", got, want)
	}
}
