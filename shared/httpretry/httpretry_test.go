package httpretry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 19, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "3", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(4 * time.Second).Format(http.TimeFormat)}, 4 * time.Second},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"huge saturates", map[string]string{"Retry-After": "1e300"}, 1<<63 - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := RetryAfter(h, now); got != tc.want {
				t.Errorf("RetryAfter(%v) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "0.5", "NaN", "-1", "+Inf", "1e400", "Wed, 21 Oct 2015 07:28:00 GMT", ""} {
		f.Add(s, s)
	}
	now := time.Now()
	f.Fuzz(func(t *testing.T, seconds, ms string) {
		h := http.Header{}
		h.Set("Retry-After", seconds)
		h.Set("Retry-After-Ms", ms)
		if got := RetryAfter(h, now); got < 0 {
			t.Errorf("RetryAfter(%q, %q) = %v, want >= 0", seconds, ms, got)
		}
	})
}

func TestJitter(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 2, 500 * time.Millisecond, time.Second} {
		for range 100 {
			if got := Jitter(d); got < d/2 || got > d {
				t.Fatalf("Jitter(%v) = %v, want within [%v, %v]", d, got, d/2, d)
			}
		}
	}
}

func TestPolicyDo(t *testing.T) {
	retryable := &Failure{Err: errors.New("503"), Status: 503, Retry: true}
	final := &Failure{Err: errors.New("400"), Status: 400}
	slow := &Failure{Err: errors.New("429"), Status: 429, Retry: true, RetryAfter: time.Minute}
	cases := []struct {
		name         string
		results      []*Failure
		deadline     time.Duration // 0: none
		wantAttempts int
		wantLast     *Failure
		wantWaits    int
	}{
		{"first succeeds", []*Failure{nil}, 0, 1, nil, 0},
		{"retried to success", []*Failure{retryable, retryable, nil}, 0, 3, nil, 2},
		{"attempts run out", []*Failure{retryable, retryable, retryable, nil}, 0, 3, retryable, 2},
		{"final failure ends it", []*Failure{final, nil}, 0, 1, final, 0},
		{"too long a Retry-After ends it", []*Failure{slow, nil}, 0, 1, slow, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			waits := 0
			p := Policy{MaxAttempts: 3, AttemptTimeout: time.Second, Backoff: time.Millisecond, MaxRetryAfter: 10 * time.Second,
				Sleep: func(context.Context, time.Duration) error { waits++; return nil }}
			i := 0
			attempts, last := p.Do(context.Background(), func(context.Context, time.Duration) *Failure {
				f := tc.results[i]
				i++
				return f
			})
			if attempts != tc.wantAttempts || last != tc.wantLast || waits != tc.wantWaits {
				t.Errorf("Do() = %d attempts, last %v, %d waits; want %d, %v, %d", attempts, last, waits, tc.wantAttempts, tc.wantLast, tc.wantWaits)
			}
		})
	}
}

func TestPolicyDoKeepsTheDeadline(t *testing.T) {
	p := Policy{MaxAttempts: 3, AttemptTimeout: time.Hour, Margin: time.Second, MinAttempt: 100 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var got time.Duration
	attempts, last := p.Do(ctx, func(_ context.Context, timeout time.Duration) *Failure { got = timeout; return nil })
	if attempts != 1 || last != nil || got > time.Second || got < 500*time.Millisecond {
		t.Errorf("Do() = %d, %v with attempt timeout %v; want one attempt bounded by the deadline less the margin", attempts, last, got)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	attempts, last = p.Do(ctx, func(context.Context, time.Duration) *Failure { t.Fatal("attempt started past the margin"); return nil })
	if attempts != 0 || last == nil || !errors.Is(last.Err, context.DeadlineExceeded) {
		t.Errorf("Do() = %d, %v; want no attempt and a deadline failure", attempts, last)
	}
}

func TestFromError(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name      string
		parent    context.Context
		err       error
		wantRetry bool
	}{
		{"caller gone", done, context.Canceled, false},
		{"attempt timed out", context.Background(), context.DeadlineExceeded, true},
		{"connection cut", context.Background(), io.ErrUnexpectedEOF, true},
		{"other", context.Background(), errors.New("bad JSON"), false},
	}
	for _, tc := range cases {
		if got := FromError(tc.parent, tc.err, time.Second); got.Retry != tc.wantRetry {
			t.Errorf("%s: FromError().Retry = %v, want %v", tc.name, got.Retry, tc.wantRetry)
		}
	}
}
