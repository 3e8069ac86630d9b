package waitbuf

import (
	"strings"
	"sync"
	"testing"
)

func TestAwaitWakesOnTheWriteThatMakesItTrue(t *testing.T) {
	t.Parallel()
	var b Buffer
	// The writer waits for its turn after each line, so the test sees every state between writes.
	turn := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, line := range []string{"starting\n", "ready\n", "done\n"} {
			<-turn
			b.Write([]byte(line))
		}
	})
	for _, want := range []string{"starting", "ready", "done"} {
		turn <- struct{}{}
		b.Await(t, want, func(s string) bool { return strings.Contains(s, want) })
	}
	wg.Wait()
	if got, want := b.String(), "starting\nready\ndone\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAwaitReturnsAtOnceWhenAlreadyTrue(t *testing.T) {
	t.Parallel()
	var b Buffer
	b.Write([]byte("there"))
	calls := 0
	b.Await(t, "there", func(s string) bool { calls++; return s == "there" })
	if calls != 1 {
		t.Errorf("got %d checks, want 1: no write was awaited", calls)
	}
}
