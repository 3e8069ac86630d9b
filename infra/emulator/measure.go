package emulator

import (
	"context"
	"fmt"
	"time"
)

// InitDuration starts a new process of function outside its pool (building it first if
// needed), waits for its init, stops it, and returns the time from process start to the
// runtime's first `next`: what Lambda reports as Init Duration. The bench measures cold starts
// with it.
func (e *Emulator) InitDuration(ctx context.Context, function string) (time.Duration, error) {
	f, err := e.lookup(function)
	if err != nil {
		return 0, err
	}
	if err := e.builder.build(ctx, f); err != nil {
		return 0, err
	}
	p, err := startProcess(f, e.output)
	if err != nil {
		return 0, err
	}
	defer p.kill()
	if err := p.awaitInit(ctx, e.done); err != nil {
		return 0, fmt.Errorf("%s: %w (output: %s)", f.id, err, p.out.tail())
	}
	return p.api.readyAt.Sub(p.started), nil
}
