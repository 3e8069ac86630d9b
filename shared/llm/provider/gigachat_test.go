package provider

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/fakeclock"
	"github.com/screenagent/backend/shared/llm"
	"github.com/screenagent/backend/shared/llm/llmtest"
)

const gigaKey = "Z2lnYS1jbGllbnQ6Z2lnYS1zZWNyZXQ="

func newGigaChat(t *testing.T, srv *llmtest.Server, key string) (*Client, *fakeclock.Clock) {
	t.Helper()
	clk := fakeclock.New(time.Now())
	c, err := NewGigaChat(GigaChatOptions{
		BaseURL: srv.URL(), OAuthURL: srv.OAuthURL(), AuthKey: key, Now: clk.Now, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	c.retry.Sleep = (&waits{}).sleep
	return c, clk
}

func TestGigaChatTokens(t *testing.T) {
	cases := []struct {
		name string
		// advance is how far the clock moves between the two calls.
		advance        time.Duration
		revoke         bool
		wantTokens     int
		wantSecondAuth string
		wantAttempts   int
	}{
		{"one exchange for two calls", 10 * time.Minute, false, 1, "Bearer gigachat-token-1", 1},
		{"refreshed shortly before expiry", 29*time.Minute + 30*time.Second, false, 2, "Bearer gigachat-token-2", 1},
		{"refused token is replaced", 0, true, 2, "Bearer gigachat-token-2", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewGigaChat(t, gigaKey)
			srv.SetDefault("ok")
			c, clk := newGigaChat(t, srv, gigaKey)
			if _, err := c.Complete(context.Background(), hello); err != nil {
				t.Fatal(err)
			}
			clk.Advance(tc.advance)
			if tc.revoke {
				srv.RevokeTokens()
			}
			res, err := c.Complete(context.Background(), hello)
			if err != nil {
				t.Fatal(err)
			}
			if res.Attempts != tc.wantAttempts {
				t.Errorf("second call took %d attempts, want %d", res.Attempts, tc.wantAttempts)
			}
			tokens := srv.TokenRequests()
			if len(tokens) != tc.wantTokens {
				t.Fatalf("got %d token requests, want %d", len(tokens), tc.wantTokens)
			}
			for _, tr := range tokens {
				if _, err := uuid.Parse(tr.RqUID); err != nil || tr.Scope != llm.GigaChatScope {
					t.Errorf("got token request %+v, want a uuid RqUID and scope %s", tr, llm.GigaChatScope)
				}
			}
			if len(tokens) == 2 && tokens[0].RqUID == tokens[1].RqUID {
				t.Errorf("RqUID %s reused, want a fresh one per request", tokens[0].RqUID)
			}
			reqs := srv.Requests()
			if got := reqs[len(reqs)-1].Header.Get("Authorization"); got != tc.wantSecondAuth {
				t.Errorf("second call sent Authorization %q, want %q", got, tc.wantSecondAuth)
			}
			if reqs[0].Model != llm.GigaChatModel {
				t.Errorf("got model %q, want %q", reqs[0].Model, llm.GigaChatModel)
			}
		})
	}
}

func TestGigaChatConcurrentCallersShareOneRefresh(t *testing.T) {
	srv := llmtest.NewGigaChat(t, gigaKey)
	srv.SetDefault("ok")
	c, _ := newGigaChat(t, srv, gigaKey)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), hello); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(srv.TokenRequests()); n != 1 {
		t.Errorf("got %d token requests for 8 concurrent calls, want 1", n)
	}
	if srv.Calls() != 8 {
		t.Errorf("got %d chat calls, want 8", srv.Calls())
	}
}

func TestGigaChatOAuthFailures(t *testing.T) {
	cases := []struct {
		name       string
		key        string
		oauthFail  int
		wantErr    bool
		wantStatus int
		attempts   int
	}{
		{"wrong key is not retried", "d3Jvbmc6a2V5", 0, true, 401, 1},
		{"token service 500 is retried", gigaKey, 500, false, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewGigaChat(t, gigaKey)
			srv.SetDefault("ok")
			if tc.oauthFail != 0 {
				srv.FailOAuth(tc.oauthFail)
			}
			c, _ := newGigaChat(t, srv, tc.key)
			res, err := c.Complete(context.Background(), hello)
			if !tc.wantErr {
				if err != nil || res.Attempts != tc.attempts {
					t.Fatalf("got %+v, %v; want success after %d attempts", res, err, tc.attempts)
				}
				return
			}
			var llmErr *llm.Error
			if !errors.As(err, &llmErr) || !errors.Is(err, llm.ErrUnavailable) {
				t.Fatalf("Complete() error = %v, want *llm.Error matching ErrUnavailable", err)
			}
			if llmErr.StatusCode != tc.wantStatus || llmErr.Attempts != tc.attempts || srv.Calls() != 0 {
				t.Errorf("got status %d, %d attempts, %d chat calls; want %d, %d, 0", llmErr.StatusCode, llmErr.Attempts, srv.Calls(), tc.wantStatus, tc.attempts)
			}
			assertNoKey(t, err, tc.key)
		})
	}
}

func TestTokenWaitHonoursContext(t *testing.T) {
	g := &gigaChatTokens{sem: make(chan struct{}, 1), now: time.Now}
	g.sem <- struct{}{} // a refresh in progress
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Token(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Token() error = %v, want context.Canceled", err)
	}
}

func TestExpiry(t *testing.T) {
	issued := time.Unix(1_700_000_000, 0)
	cases := []struct {
		in   int64
		want time.Time
	}{
		{1706026848841, time.UnixMilli(1706026848841)},
		{1706026848, time.Unix(1706026848, 0)},
		{0, issued.Add(30 * time.Minute)},
	}
	for _, tc := range cases {
		if got := expiry(tc.in, issued); !got.Equal(tc.want) {
			t.Errorf("expiry(%d) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
