package ddblocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// startTimeout bounds how long a started JVM may take to answer ListTables. It usually takes
// 2 to 3 seconds, but a minute and more on a machine whose cores are busy with builds.
const startTimeout = 3 * time.Minute

// Options configure Start.
type Options struct {
	// Port to listen on; 0 picks a free one.
	Port int
	// Dir is the npm folder holding the lock file; empty means <repo root>/infra/dynamodb.
	Dir string
	// Log receives progress messages and the server's output; nil discards them.
	Log io.Writer
	// DataDir keeps the database in this folder (created when missing), so data survives a
	// restart; empty means in memory, gone when the server stops.
	DataDir string
}

// Server is a running DynamoDB Local.
type Server struct {
	cmd      *exec.Cmd
	port     int
	out      *outputWatch
	exited   chan struct{} // closed once cmd.Wait returns
	waitErr  error
	stopOnce sync.Once
	stopErr  error
	onDisk   bool
}

// errPortInUse marks a start that failed because the port was taken.
var errPortInUse = errors.New("port already in use")

// Start installs DynamoDB Local and Java when missing, starts DynamoDB Local (in memory unless
// opts.DataDir is set) and returns once it answers requests. ctx bounds the start only; the
// server runs until Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.DataDir != "" {
		dir, err := filepath.Abs(opts.DataDir)
		if err != nil {
			return nil, fmt.Errorf("start DynamoDB Local: data dir: %w", err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("start DynamoDB Local: %w", err)
		}
		opts.DataDir = dir
	}
	jarDir, err := Install(ctx, opts.Dir, opts.Log)
	if err != nil {
		return nil, err
	}
	if err := EnsureJava(ctx, opts.Log); err != nil {
		return nil, err
	}
	if opts.Port != 0 {
		if err := portFree(opts.Port); err != nil {
			return nil, fmt.Errorf("start DynamoDB Local: %w", err)
		}
		return start(ctx, jarDir, opts.Port, opts)
	}
	// A picked port can be taken by someone else before the JVM binds it; try another then.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("start DynamoDB Local: %w", err)
		}
		s, err := start(ctx, jarDir, port, opts)
		if err == nil || !errors.Is(err, errPortInUse) || attempt == 3 {
			return s, err
		}
	}
}

func start(ctx context.Context, jarDir string, port int, opts Options) (*Server, error) {
	storage := []string{"-inMemory"}
	if opts.DataDir != "" {
		storage = []string{"-dbPath", opts.DataDir}
	}
	// DynamoDB Local has no option to choose the bind address: it listens on all interfaces.
	args := []string{
		// Faster startup and a smaller footprint; a test server never needs peak JIT throughput.
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.library.path=" + filepath.Join(jarDir, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(jarDir, "DynamoDBLocal.jar"),
	}
	args = append(args, storage...)
	args = append(args,
		"-port", strconv.Itoa(port),
		// One database for every access key and region, so the test client, the local emulator's
		// functions and the admin CLI see the same tables whatever credentials they resolve.
		"-sharedDb",
		// Tests must not phone home.
		"-disableTelemetry",
	)
	// Not CommandContext: ctx bounds the start, not the server's life.
	cmd := exec.Command("java", args...)
	cmd.Dir = jarDir
	out := newOutputWatch(opts.Log)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	// Stop kills the whole group, so the output pipe closes; this is only a backstop.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start DynamoDB Local: %w", err)
	}
	s := &Server{cmd: cmd, port: port, out: out, exited: make(chan struct{}), onDisk: opts.DataDir != ""}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, fmt.Errorf("start DynamoDB Local on port %d: %w", port, err)
	}
	return s, nil
}

// waitReady polls ListTables until it answers, the JVM exits or fails to bind, or time runs out.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	client := dynamodb.New(dynamodb.Options{
		Region:                          "us-east-1",
		BaseEndpoint:                    aws.String(s.Endpoint()),
		Credentials:                     credentials.NewStaticCredentialsProvider("local", "local", ""),
		RetryMaxAttempts:                1,
		DisableValidateResponseChecksum: true,
	})
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		// The bind failure is checked first: the JVM keeps running after it, and whatever holds
		// the port might answer the probe.
		select {
		case <-s.out.bindFailed:
			return fmt.Errorf("%w:\n%s", errPortInUse, s.out.String())
		case <-s.exited:
			return fmt.Errorf("java exited early (%v):\n%s", s.waitErr, s.out.String())
		default:
		}
		probe, cancelProbe := context.WithTimeout(ctx, 2*time.Second)
		_, err := client.ListTables(probe, &dynamodb.ListTablesInput{})
		cancelProbe()
		if err == nil {
			select {
			case <-s.out.bindFailed:
				return fmt.Errorf("%w:\n%s", errPortInUse, s.out.String())
			default:
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer to ListTables (%v; last error: %v); output:\n%s", ctx.Err(), err, s.out.String())
		case <-tick.C:
		}
	}
}

// Endpoint is the server's URL on the loopback interface.
func (s *Server) Endpoint() string {
	return "http://127.0.0.1:" + strconv.Itoa(s.port)
}

// stopGrace is how long a database on disk gets to close its files before it is killed.
const stopGrace = 5 * time.Second

// Stop stops the server's process group and waits for it to exit. Calling it again is harmless.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		// A database on disk closes its files on SIGTERM; an in-memory one has nothing to flush.
		if s.onDisk && syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM) == nil {
			select {
			case <-s.exited:
				return
			case <-time.After(stopGrace):
			}
		}
		if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			s.stopErr = fmt.Errorf("stop DynamoDB Local: %w", err)
			return
		}
		<-s.exited
	})
	return s.stopErr
}

// portFree reports whether port can be bound on all interfaces, as DynamoDB Local will.
func portFree(port int) error {
	l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return fmt.Errorf("port %d is already in use: %w", port, err)
	}
	return l.Close()
}

// freePort asks the kernel for a port that is free on all interfaces.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// outputWatch keeps the tail of the server's output for error messages, forwards it to the log
// and notices a failed bind, after which the JVM hangs instead of exiting.
type outputWatch struct {
	log        io.Writer
	mu         sync.Mutex
	buf        []byte
	bindFailed chan struct{}
	once       sync.Once
}

const outputTail = 16 << 10

func newOutputWatch(log io.Writer) *outputWatch {
	if log == nil {
		log = io.Discard
	}
	return &outputWatch{log: log, bindFailed: make(chan struct{})}
}

func (w *outputWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*outputTail {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-outputTail:]...)
	}
	if bytes.Contains(w.buf, []byte("Failed to bind")) || bytes.Contains(w.buf, []byte("Address already in use")) {
		w.once.Do(func() { close(w.bindFailed) })
	}
	w.mu.Unlock()
	w.log.Write(p)
	return len(p), nil
}

func (w *outputWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.buf
	if len(b) > outputTail {
		b = b[len(b)-outputTail:]
	}
	return strings.TrimSpace(string(b))
}
