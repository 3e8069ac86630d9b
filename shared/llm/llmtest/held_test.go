package llmtest

import (
	"context"
	"errors"
	"testing"

	"github.com/screenagent/backend/shared/llm"
)

// answering is a client that says it was asked.
type answering struct{ asked chan struct{} }

func (a answering) Complete(context.Context, llm.Request) (llm.Response, error) {
	close(a.asked)
	return llm.Response{Content: "ok"}, nil
}

func TestHeldAnswersOnlyAfterRelease(t *testing.T) {
	release := make(chan struct{})
	inner := answering{asked: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := Held{Client: inner, Release: release}.Complete(context.Background(), llm.Request{})
		done <- err
	}()
	select {
	case <-inner.asked:
		t.Fatal("the wrapped client was asked before the release")
	case <-done:
		t.Fatal("Complete returned before the release")
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("got error %v after the release, want the answer", err)
	}
}

func TestHeldEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	inner := answering{asked: make(chan struct{})}
	if _, err := (Held{Client: inner, Release: make(chan struct{})}).Complete(ctx, llm.Request{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
