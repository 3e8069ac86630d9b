// Package stack starts the whole backend in-process, as `make run` does, for the proving ground:
// DynamoDB Local in memory (or one already running), the template's tables under a fresh
// prefix, the demo account, and the API emulator serving the real function binaries on a free
// loopback port.
package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/emulator"
	"github.com/screenagent/backend/infra/tables"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/awsconfig"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/sam"
)

// The stack's login.
const (
	Email    = "eval@example.com"
	Password = "eval-password-123"
	org      = "Eval Org"
)

// Options configure Start.
type Options struct {
	// DynamoDBEndpoint is a DynamoDB Local to use; empty starts one.
	DynamoDBEndpoint string
	// Env is set in every function's environment, over the template's (LLM settings, limits).
	Env map[string]string
	// Functions are built before Start returns (folder names under functions/), so first
	// requests don't wait for the compiler; others are built on first use.
	Functions []string
	// BuildDir receives the function binaries; empty means <repo>/.local/eval-build.
	BuildDir string
	// Log receives the stack's logs; nil discards them.
	Log io.Writer
	// FunctionTimeout, when positive, replaces the template's function timeouts (a slow model).
	FunctionTimeout time.Duration
}

// Stack is a running backend.
type Stack struct {
	URL     string
	closers []func()
}

// Start brings the stack up; Close takes it down.
func Start(ctx context.Context, o Options) (_ *Stack, err error) {
	s := &Stack{}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	root, err := ddblocal.RepoRoot()
	if err != nil {
		return nil, err
	}
	tmpl, err := sam.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	endpoint := o.DynamoDBEndpoint
	if endpoint == "" {
		db, err := ddblocal.Start(ctx, ddblocal.Options{Log: log})
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, func() { _ = db.Stop() })
		endpoint = db.Endpoint()
	}
	cfg, err := awsconfig.Load(ctx, endpoint, config.AWSCredentialsInEnv())
	if err != nil {
		return nil, err
	}
	client := awsconfig.DynamoDB(cfg, endpoint)
	prefix := "eval" + randomHex(4) + "_"
	names, err := tables.Create(ctx, client, tmpl, prefix)
	if err != nil {
		return nil, fmt.Errorf("create tables: %w", err)
	}
	s.closers = append(s.closers, func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = tables.Delete(dctx, client, names)
	})
	if _, err := provision.EnsureDemo(ctx, accountsdb.New(client, names["AccountsTable"]), Email, Password, org); err != nil {
		return nil, fmt.Errorf("create the eval account: %w", err)
	}
	overrides := map[string]string{"DYNAMODB_ENDPOINT": endpoint}
	for k, v := range o.Env {
		overrides[k] = v
	}
	buildDir := o.BuildDir
	if buildDir == "" {
		buildDir = filepath.Join(root, ".local", "eval-build")
	}
	emu, err := emulator.New(emulator.Config{
		Template: tmpl, Root: root, Env: sam.Env{Resources: names}, Overrides: overrides,
		BuildDir: buildDir, Logger: slog.New(slog.NewJSONHandler(log, nil)), Output: log,
		Timeout: o.FunctionTimeout,
	})
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { _ = emu.Close() })
	if len(o.Functions) > 0 {
		if err := emu.Build(ctx, o.Functions...); err != nil {
			return nil, fmt.Errorf("build functions: %w", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: emu.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	s.closers = append(s.closers, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = srv.Close()
		}
	})
	s.URL = "http://" + ln.Addr().String()
	return s, nil
}

// Close stops everything Start started, last first.
func (s *Stack) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
