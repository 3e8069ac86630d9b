package emulator

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// initTimeout is Lambda's limit on a runtime's init phase.
const initTimeout = 10 * time.Second

// process is one running bootstrap: what Lambda calls an execution environment.
type process struct {
	cmd     *exec.Cmd
	api     *runtimeAPI
	out     *output
	started time.Time
	exited  chan struct{} // closed once the process has been waited for
	waitErr error         // set before exited is closed
}

// startProcess starts f's bootstrap with its stdout and stderr going to dst.
func startProcess(f *function, dst io.Writer) (*process, error) {
	api, err := newRuntimeAPI(f.arn)
	if err != nil {
		return nil, err
	}
	out := &output{dst: dst}
	cmd := exec.Command(f.bootstrap())
	cmd.Dir = f.taskRoot
	cmd.Env = environList(f.env, api.addr)
	cmd.Stdout, cmd.Stderr = out, out
	// Should the bootstrap hand its pipes to a child, a kill must still finish.
	cmd.WaitDelay = time.Second
	p := &process{cmd: cmd, api: api, out: out, started: time.Now(), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		api.close()
		return nil, fmt.Errorf("start %s: %w", f.id, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		out.flush()
		close(p.exited)
	}()
	return p, nil
}

// awaitInit waits for the runtime's first `next`. A runtime that posts an init error, exits,
// outlasts Lambda's init limit or is abandoned is killed.
func (p *process) awaitInit(ctx context.Context, stop <-chan struct{}) error {
	timer := time.NewTimer(initTimeout)
	defer timer.Stop()
	var cause error
	select {
	case <-p.api.ready:
		return nil
	case fe := <-p.api.initErr:
		cause = fe
	case <-p.exited:
		cause = fmt.Errorf("runtime exited during init: %v", p.waitErr)
	case <-timer.C:
		cause = fmt.Errorf("init did not finish within %v", initTimeout)
	case <-ctx.Done():
		cause = ctx.Err()
	case <-stop:
		cause = errClosed
	}
	p.kill()
	// A runtime that posts its init error and then exits may be seen exiting first; what it
	// posted says more.
	select {
	case fe := <-p.api.initErr:
		cause = fe
	default:
	}
	return fmt.Errorf("init failed: %w", cause)
}

// invoke hands inv to the runtime and waits for its answer, killing the process when the
// timeout expires as Lambda does.
func (p *process) invoke(inv *invocation, timeout time.Duration) (result, error) {
	// Never blocks: a process is lent to one invocation at a time, and one that left an
	// invocation untaken is discarded.
	p.api.pending <- inv
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case res := <-inv.result:
		return res, nil
	case <-timer.C:
		p.kill()
		return result{}, ErrTimeout
	case <-p.exited:
		select {
		case res := <-inv.result:
			return res, nil
		default:
		}
		if !inv.taken.Load() {
			return result{}, errNotStarted
		}
		msg := fmt.Sprintf("RequestId: %s Error: Runtime exited with error: %v", inv.id, p.waitErr)
		return result{err: &FunctionError{Type: "Runtime.ExitError", Message: msg}}, nil
	}
}

// kill ends the process and waits for it.
func (p *process) kill() {
	p.cmd.Process.Kill() // fails only if it has exited already
	<-p.exited
	p.api.close()
}

func (p *process) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}
