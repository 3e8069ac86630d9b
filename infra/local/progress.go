package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/screenagent/backend/infra/emulator"
)

// buildReporter prints one line per built function and, while a build runs long without news
// (the first build on a machine compiles every dependency), a line now and then saying it is
// still at work.
type buildReporter struct {
	out   io.Writer
	gate  *gate
	start time.Time

	mu   sync.Mutex
	last time.Time
	done int
	stop chan struct{}
}

// quietFor is how long the reporter stays silent before saying the build goes on.
const quietFor = 20 * time.Second

func newBuildReporter(out io.Writer, g *gate, total int) *buildReporter {
	now := time.Now()
	r := &buildReporter{out: out, gate: g, start: now, last: now, stop: make(chan struct{})}
	fmt.Fprintf(out, "building %d functions for this machine (a fresh Go build cache takes minutes; later starts take seconds)\n", total)
	g.setPhase(fmt.Sprintf("building functions (0 of %d)", total))
	go r.heartbeat(total)
	return r
}

// built is the emulator's progress callback.
func (r *buildReporter) built(b emulator.Built) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last, r.done = time.Now(), b.Done
	status := "built "
	switch {
	case errors.Is(b.Err, context.Canceled):
		status = "stopped"
	case b.Err != nil:
		status = "FAILED"
	}
	fmt.Fprintf(r.out, "  %s %2d/%d  %-28s %6.1fs\n", status, b.Done, b.Total, b.Function, b.Duration.Seconds())
	r.gate.setPhase(fmt.Sprintf("building functions (%d of %d)", b.Done, b.Total))
}

func (r *buildReporter) heartbeat(total int) {
	tick := time.NewTicker(quietFor / 4)
	defer tick.Stop()
	for {
		select {
		case <-r.stop:
			return
		case now := <-tick.C:
			r.mu.Lock()
			if now.Sub(r.last) >= quietFor {
				fmt.Fprintf(r.out, "  ...    %d/%d  still compiling (%s so far)\n", r.done, total, now.Sub(r.start).Round(time.Second))
				r.last = now
			}
			r.mu.Unlock()
		}
	}
}

// finish stops the heartbeat and prints the total time.
func (r *buildReporter) finish() {
	close(r.stop)
	fmt.Fprintf(r.out, "functions built in %s\n", time.Since(r.start).Round(100*time.Millisecond))
}
