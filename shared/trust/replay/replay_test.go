package replay

import (
	"context"
	"errors"
	"testing"
	"time"
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
		{"still in flight", 0, nil, ErrInFlight, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			err := Wait{Max: 50 * time.Millisecond, Poll: time.Millisecond}.Until(context.Background(), func(context.Context) (bool, error) {
				n++
				if tc.doneAfter > 0 && n == tc.doneAfter {
					return true, tc.err
				}
				return false, nil
			})
			if !errors.Is(err, tc.want) {
				t.Errorf("Until() = %v, want %v", err, tc.want)
			}
			if tc.attempts > 0 && n != tc.attempts {
				t.Errorf("%d attempts, want %d", n, tc.attempts)
			}
		})
	}
}

func TestUntilKeepsTheReserve(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := Wait{Max: time.Minute, Poll: time.Millisecond, Reserve: 900 * time.Millisecond}.Until(ctx, func(context.Context) (bool, error) { return false, nil })
	if !errors.Is(err, ErrInFlight) {
		t.Fatalf("Until() = %v, want ErrInFlight", err)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("the wait took %v, want it to end 900ms before the 1s deadline", took)
	}
}
