package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Invoke runs a function with any event, as `sam local invoke -e` does, and returns its output.
// function is a logical ID or the folder name of its CodeUri. An error the function reports is
// a *FunctionError; ErrTimeout and ErrUnknownFunction are the other errors worth telling apart.
func (e *Emulator) Invoke(ctx context.Context, function string, event []byte) ([]byte, error) {
	f, err := e.lookup(function)
	if err != nil {
		return nil, err
	}
	if !json.Valid(event) {
		return nil, fmt.Errorf("invoke %s: the event is not JSON", f.id)
	}
	out, err := e.invoke(ctx, f, event, newTraceRoot(time.Now()))
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", f.id, err)
	}
	return out, nil
}

// Built reports one function of a Build: done of total are finished (this one included).
type Built struct {
	Function    string
	Done, Total int
	Duration    time.Duration
	Err         error
}

// Build builds the given functions (logical IDs or CodeUri folder names), or all of them, so
// that first requests don't wait for the compiler. Config.BuildProgress hears of each function
// as its build ends.
func (e *Emulator) Build(ctx context.Context, functions ...string) error {
	var fns []*function
	if len(functions) == 0 {
		for _, id := range slices.Sorted(maps.Keys(e.functions)) {
			fns = append(fns, e.functions[id])
		}
	}
	for _, name := range functions {
		f, err := e.lookup(name)
		if err != nil {
			return err
		}
		fns = append(fns, f)
	}
	errs := make([]error, len(fns))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for i, f := range fns {
		wg.Go(func() {
			errs[i] = e.builder.build(ctx, f)
			if e.buildProgress == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			done++
			e.buildProgress(Built{Function: f.id, Done: done, Total: len(fns), Duration: e.builder.duration(f), Err: errs[i]})
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// invoke runs one invocation of f on a warm or a new process. Failures are logged here, where
// their details are known; callers only map them to answers.
func (e *Emulator) invoke(ctx context.Context, f *function, payload []byte, traceRoot string) ([]byte, error) {
	if err := e.builder.build(ctx, f); err != nil {
		return nil, err
	}
	start := func(ctx context.Context) (*process, error) { return e.coldStart(ctx, f) }
	for attempt := 1; ; attempt++ {
		p, err := f.pool.get(ctx, start)
		if err != nil {
			return nil, err
		}
		inv := &invocation{
			id:       newLambdaRequestID(),
			payload:  payload,
			deadline: time.Now().Add(f.timeout),
			traceID:  lambdaTraceID(traceRoot),
			result:   make(chan result, 1),
		}
		res, err := p.invoke(inv, f.timeout)
		switch {
		case errors.Is(err, errNotStarted) && attempt == 1:
			// The process died idle (say, after a panic); Lambda would use a fresh one.
			f.pool.discard(p)
			continue
		case errors.Is(err, ErrTimeout):
			f.pool.discard(p)
			e.log.Error("invocation timed out", "function", f.id, "requestId", inv.id, "timeoutSeconds", f.timeout.Seconds())
			return nil, err
		case err != nil:
			f.pool.discard(p)
			e.log.Error("invocation failed", "function", f.id, "requestId", inv.id, "error", err, "output", p.out.tail())
			return nil, err
		}
		if p.alive() {
			f.pool.put(p)
		} else {
			f.pool.discard(p)
		}
		if res.err != nil {
			e.log.Error("function error", "function", f.id, "requestId", inv.id, "errorType", res.err.Type, "errorMessage", res.err.Message)
			return nil, res.err
		}
		return res.payload, nil
	}
}

// coldStart starts a process for f and waits for its init.
func (e *Emulator) coldStart(ctx context.Context, f *function) (*process, error) {
	p, err := startProcess(f, e.output)
	if err != nil {
		e.log.Error("start failed", "function", f.id, "error", err)
		return nil, err
	}
	if err := p.awaitInit(ctx, e.done); err != nil {
		if ctx.Err() == nil && !errors.Is(err, errClosed) {
			e.log.Error("init failed", "function", f.id, "error", err, "output", p.out.tail())
		}
		return nil, err
	}
	e.log.Info("cold start", "function", f.id, "pid", p.cmd.Process.Pid,
		"initDurationMs", time.Since(p.started).Milliseconds())
	return p, nil
}
