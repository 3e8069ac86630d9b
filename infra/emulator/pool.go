package emulator

import (
	"context"
	"sync"
)

// pool holds the processes of one function the way Lambda holds execution environments: a
// request takes an idle one, or starts another while fewer than size exist, or waits.
type pool struct {
	idle  chan *process // capacity size, so returning a process never blocks
	slots chan struct{} // one token per live or starting process

	mu       sync.Mutex
	closed   bool
	live     map[*process]struct{}
	starting sync.WaitGroup
}

func newPool(size int) *pool {
	return &pool{
		idle:  make(chan *process, size),
		slots: make(chan struct{}, size),
		live:  map[*process]struct{}{},
	}
}

// get lends a process to the caller, who gives it back with put or discard.
func (pl *pool) get(ctx context.Context, start func(context.Context) (*process, error)) (*process, error) {
	for {
		if pl.isClosed() {
			return nil, errClosed
		}
		// A warm process is always preferred to starting one.
		select {
		case p := <-pl.idle:
			if p.alive() {
				return p, nil
			}
			pl.discard(p)
			continue
		default:
		}
		select {
		case p := <-pl.idle:
			if p.alive() {
				return p, nil
			}
			pl.discard(p)
		case pl.slots <- struct{}{}:
			return pl.startNew(ctx, start)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// startNew starts a process in a slot the caller holds.
func (pl *pool) startNew(ctx context.Context, start func(context.Context) (*process, error)) (*process, error) {
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		<-pl.slots
		return nil, errClosed
	}
	pl.starting.Add(1)
	pl.mu.Unlock()
	defer pl.starting.Done()

	p, err := start(ctx)
	if err != nil {
		<-pl.slots
		return nil, err
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.closed {
		p.kill()
		<-pl.slots
		return nil, errClosed
	}
	pl.live[p] = struct{}{}
	return p, nil
}

// put makes a process available to the next request.
func (pl *pool) put(p *process) {
	if pl.isClosed() {
		p.kill()
		return
	}
	pl.idle <- p
}

// discard kills a process and frees its slot.
func (pl *pool) discard(p *process) {
	p.kill()
	pl.mu.Lock()
	delete(pl.live, p)
	pl.mu.Unlock()
	<-pl.slots
}

// close kills every process and waits for starts in progress, which the caller has aborted.
func (pl *pool) close() {
	pl.mu.Lock()
	pl.closed = true
	procs := make([]*process, 0, len(pl.live))
	for p := range pl.live {
		procs = append(procs, p)
	}
	pl.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
	pl.starting.Wait()
}

func (pl *pool) isClosed() bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.closed
}
