package emulator

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// maxBuilds bounds concurrent `go build`s: each one saturates the CPUs on its own.
const maxBuilds = 2

// builder builds each function once, on first use; concurrent callers wait for the same build.
type builder struct {
	root   string
	flags  []string
	log    *slog.Logger
	ctx    context.Context // canceled by close, which kills builds in progress
	cancel context.CancelFunc
	slots  chan struct{}
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	builds map[string]*buildState
}

type buildState struct {
	done chan struct{} // closed when err is final
	err  error
	// took is how long the build itself ran, without the wait for a slot.
	took time.Duration
}

func newBuilder(root string, flags []string, log *slog.Logger) *builder {
	ctx, cancel := context.WithCancel(context.Background())
	return &builder{
		root:   root,
		flags:  flags,
		log:    log,
		ctx:    ctx,
		cancel: cancel,
		slots:  make(chan struct{}, maxBuilds),
		builds: map[string]*buildState{},
	}
}

// build returns once f's bootstrap is built. A failed build is retried by the next caller, so
// fixing the code does not need a restart.
func (b *builder) build(ctx context.Context, f *function) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errClosed
	}
	st := b.builds[f.id]
	if st == nil || st.failed() {
		st = &buildState{done: make(chan struct{})}
		b.builds[f.id] = st
		b.wg.Add(1)
		// Detached from ctx: other callers may be waiting for this build.
		go b.run(f, st)
	}
	b.mu.Unlock()
	select {
	case <-st.done:
		return st.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (st *buildState) failed() bool {
	select {
	case <-st.done:
		return st.err != nil
	default:
		return false
	}
}

func (b *builder) run(f *function, st *buildState) {
	defer b.wg.Done()
	defer close(st.done)
	select {
	case b.slots <- struct{}{}:
		defer func() { <-b.slots }()
	case <-b.ctx.Done():
		st.err = errClosed
		return
	}
	start := time.Now()
	pkg := f.codeURI
	if !filepath.IsAbs(pkg) {
		pkg = "./" + filepath.ToSlash(pkg)
	}
	args := append(append([]string{"build", "-tags", "lambda.norpc"}, b.flags...), "-o", f.bootstrap(), pkg)
	cmd := exec.CommandContext(b.ctx, "go", args...)
	cmd.Dir = b.root
	// For the host, whatever the caller's shell targets: the binary runs here, not in Lambda.
	cmd.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH, "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	st.took = time.Since(start)
	if err != nil {
		b.log.Error("build failed", "function", f.id, "package", pkg, "error", err, "output", string(out))
		st.err = fmt.Errorf("build %s: %w", f.id, err)
		return
	}
	b.log.Info("built", "function", f.id, "durationMs", st.took.Milliseconds())
}

// duration is how long f's latest finished build ran (zero if it never started).
func (b *builder) duration(f *function) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if st := b.builds[f.id]; st != nil {
		return st.took
	}
	return 0
}

// close kills builds in progress and waits for them.
func (b *builder) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}
