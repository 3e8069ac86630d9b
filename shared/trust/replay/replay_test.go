package replay

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/screenagent/backend/shared/fakeclock"
)

func TestUntil(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name      string
		doneAfter int // attempts until done; 0 never
		err       error
		want      error
		attempts  int
	}{
		{"done at once", 1, nil, nil, 1},
		{"done after waiting", 3, nil, nil, 3},
		{"an error ends the wait", 2, boom, boom, 2},
		// Each attempt takes 10ms of the 50ms wait: the fifth ends it.
		{"still in flight", 0, nil, ErrInFlight, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := fakeclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			n := 0
			err := Wait{Max: 50 * time.Millisecond, Poll: time.Microsecond, Now: clock.Now}.Until(context.Background(), func(context.Context) (bool, error) {
				n++
				clock.Advance(10 * time.Millisecond)
				if tc.doneAfter > 0 && n == tc.doneAfter {
					return true, tc.err
				}
				return false, nil
			})
			if !errors.Is(err, tc.want) {
				t.Errorf("Until() = %v, want %v", err, tc.want)
			}
			if n != tc.attempts {
				t.Errorf("%d attempts, want %d", n, tc.attempts)
			}
		})
	}
}

func TestUntilKeepsTheReserve(t *testing.T) {
	t.Parallel()
	start := time.Now()
	clock := fakeclock.New(start)
	// The request's deadline is an hour away and it keeps 59 minutes for itself: the wait may
	// take one minute of its hour-long Max.
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(time.Hour))
	defer cancel()
	n := 0
	err := Wait{Max: time.Hour, Poll: time.Microsecond, Reserve: 59 * time.Minute, Now: clock.Now}.Until(ctx, func(context.Context) (bool, error) {
		n++
		clock.Advance(20 * time.Second)
		return false, nil
	})
	if !errors.Is(err, ErrInFlight) {
		t.Fatalf("Until() = %v, want ErrInFlight", err)
	}
	if n != 3 {
		t.Errorf("%d attempts of 20s each, want 3: the wait ends at the deadline less the reserve", n)
	}
}
