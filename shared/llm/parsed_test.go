package llm

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scripted replies in order, recording the requests it got.
type scripted struct {
	replies []string
	errs    []error
	got     []Request
}

func (s *scripted) Complete(_ context.Context, req Request) (Response, error) {
	i := len(s.got)
	s.got = append(s.got, req)
	if i < len(s.errs) && s.errs[i] != nil {
		return Response{}, s.errs[i]
	}
	return Response{Content: s.replies[i], Usage: Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}, Attempts: 1, Model: "m", Latency: time.Millisecond}, nil
}

func parseInt(reply string) (int, error) { return strconv.Atoi(strings.TrimSpace(reply)) }

func TestCompleteParsed(t *testing.T) {
	cases := []struct {
		name          string
		replies       []string
		errs          []error
		deadline      time.Duration
		wantValid     bool
		wantValue     int
		wantCalls     int
		wantCorrected bool
		wantErr       bool
	}{
		{"first reply parses", []string{"7"}, nil, 0, true, 7, 1, false, false},
		{"corrected", []string{"seven", "7"}, nil, 0, true, 7, 2, true, false},
		{"refused twice", []string{"seven", "sept"}, nil, 0, false, 0, 2, true, false},
		{"no time to correct", []string{"seven", "7"}, nil, time.Second, false, 0, 1, false, false},
		{"failed call", []string{""}, []error{&Error{Attempts: 3, Err: errors.New("503")}}, 0, false, 0, 1, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &scripted{replies: tc.replies, errs: tc.errs}
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			req := Request{Messages: []Message{{Role: RoleUser, Content: "a number?"}}}
			p, err := CompleteParsed(ctx, c, req, parseInt, "Answer with digits only.", 5*time.Second)
			if (err != nil) != tc.wantErr || p.Valid != tc.wantValid || p.Value != tc.wantValue || len(c.got) != tc.wantCalls || p.Corrected != tc.wantCorrected {
				t.Fatalf("got %+v, %v after %d calls; want valid %v value %d, %d calls, corrected %v, error %v",
					p, err, len(c.got), tc.wantValid, tc.wantValue, tc.wantCalls, tc.wantCorrected, tc.wantErr)
			}
			if tc.wantErr && p.Attempts != 3 {
				t.Errorf("attempts = %d, want the failed call's 3", p.Attempts)
			}
			if !tc.wantErr && p.Usage.PromptTokens != 10*tc.wantCalls {
				t.Errorf("prompt tokens = %d, want the sum of %d calls", p.Usage.PromptTokens, tc.wantCalls)
			}
			if tc.wantCorrected {
				last := c.got[1].Messages[len(c.got[1].Messages)-1].Content
				if !strings.Contains(last, "could not be used") || !strings.Contains(last, "Answer with digits only.") || len(c.got[1].Messages) != 3 {
					t.Errorf("corrective request = %+v, want the bad reply and a message quoting the problem", c.got[1].Messages)
				}
			}
			if len(req.Messages) != 1 {
				t.Errorf("the caller's messages were changed: %+v", req.Messages)
			}
		})
	}
}

func TestWithReserve(t *testing.T) {
	base, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	ctx, done := WithReserve(base, 10*time.Minute, 0)
	dl, _ := ctx.Deadline()
	baseDl, _ := base.Deadline()
	if got := baseDl.Sub(dl); got != 10*time.Minute {
		t.Errorf("reserve = %v, want 10m before the caller's deadline", got)
	}
	done()
	ctx, done = WithReserve(context.Background(), time.Second, time.Minute)
	if _, ok := ctx.Deadline(); !ok {
		t.Errorf("no deadline with a fallback, want one")
	}
	done()
	ctx, done = WithReserve(context.Background(), time.Second, 0)
	if _, ok := ctx.Deadline(); ok {
		t.Errorf("a deadline without a fallback, want none")
	}
	done()
}
