// Package waitbuf is the buffer tests give code as its log or output writer, to read what was
// written or to wait until something is: a wait wakes on each write, never on a clock.
package waitbuf

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"
)

// Bound fails a wait that nothing ends: it only catches a stuck test, it is never a pause.
const Bound = 2 * time.Minute

// Buffer is safe for concurrent writers and readers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// wrote is closed by the next write, waking the waits (Await).
	wrote chan struct{}
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wrote != nil {
		close(b.wrote)
		b.wrote = nil
	}
	return b.b.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Await returns once ok holds for what was written, checking after each write; what names the
// awaited event when Bound passes first and the test fails.
func (b *Buffer) Await(t testing.TB, what string, ok func(written string) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Bound)
	defer cancel()
	for {
		b.mu.Lock()
		if b.wrote == nil {
			b.wrote = make(chan struct{})
		}
		wrote, written := b.wrote, b.b.String()
		b.mu.Unlock()
		if ok(written) {
			return
		}
		select {
		case <-wrote:
		case <-ctx.Done():
			t.Fatalf("waited %v for %s; written:\n%s", Bound, what, b.String())
		}
	}
}
