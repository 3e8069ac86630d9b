// Package emulator serves the HTTP API of template.yaml locally without Docker, the way
// `sam local start-api` does: each function is built from its CodeUri, runs as real processes
// behind an emulated Lambda Runtime API, and receives API Gateway payload format 2.0 events.
package emulator

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/screenagent/backend/shared/sam"
)

// Config says what to serve and how functions are built and configured.
type Config struct {
	// Template defines the functions, their routes, environment and the API's CORS.
	Template *sam.Template
	// Root is the directory CodeUri paths are relative to (the template's); empty means ".".
	Root string
	// Env resolves intrinsics: parameter overrides and logical ID → local physical name.
	Env sam.Env
	// EnvFile is an optional env.json in `sam local --env-vars` format.
	EnvFile string
	// Overrides are set last in every function's environment (e.g. DYNAMODB_ENDPOINT).
	Overrides map[string]string
	// BuildDir receives <LogicalID>/bootstrap; empty means a temporary directory that Close removes.
	BuildDir string
	// BuildFlags are added to every function's `go build` (the bench builds as for Lambda:
	// -trimpath -ldflags=-s -w).
	BuildFlags []string
	// MaxProcesses bounds the processes of each function; 0 means 4.
	MaxProcesses int
	// Timeout, when positive, replaces every function's Timeout (a slow model's proving ground).
	Timeout time.Duration
	// Logger receives request, cold start, build and error logs; nil means slog.Default().
	Logger *slog.Logger
	// Output receives the functions' stdout and stderr, whole lines at a time; nil means os.Stderr.
	Output io.Writer
	// BuildProgress, when set, hears of each function as its build by Build ends, one call at a time.
	BuildProgress func(Built)
}

// Emulator runs the template's functions and serves its HTTP API routes.
type Emulator struct {
	log       *slog.Logger
	functions map[string]*function // by logical ID
	byFolder  map[string][]*function
	routes    *router
	cors      *corsPolicy // nil when the API has no CorsConfiguration
	ws        *wsAPI      // nil when the template has no WebSocket API
	accountID string
	builder   *builder
	// done is closed by Close; it aborts process starts that are still initialising.
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
	removeDir string
	output    io.Writer
	// buildProgress is Config.BuildProgress.
	buildProgress func(Built)
}

// New prepares an emulator; nothing is built or started until first use or Build.
func New(cfg Config) (_ *Emulator, err error) {
	if cfg.Template == nil {
		return nil, errors.New("emulator: no template")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	maxProcs := cfg.MaxProcesses
	if maxProcs <= 0 {
		maxProcs = 4
	}
	root, err := filepath.Abs(cmp.Or(cfg.Root, "."))
	if err != nil {
		return nil, fmt.Errorf("emulator root: %w", err)
	}
	buildDir, removeDir := cfg.BuildDir, ""
	if buildDir == "" {
		if buildDir, err = os.MkdirTemp("", "emulator-build-"); err != nil {
			return nil, fmt.Errorf("emulator build dir: %w", err)
		}
		removeDir = buildDir
		defer func() {
			if err != nil {
				os.RemoveAll(removeDir)
			}
		}()
	}
	if buildDir, err = filepath.Abs(buildDir); err != nil {
		return nil, fmt.Errorf("emulator build dir: %w", err)
	}

	caller := environMap(os.Environ())
	env := cfg.Env
	if env.Region == "" {
		env.Region = callerRegion(caller)
	}
	file, err := loadEnvFile(cfg.EnvFile)
	if err != nil {
		return nil, err
	}
	cors, err := cfg.Template.HTTPAPICors(env)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	accountID, err := cfg.Template.ResolveString(sam.Intrinsic{Name: "Ref", Arg: "AWS::AccountId"}, env)
	if err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}

	routes := newRouter(cfg.Template.Routes())
	routes.requireIAM(iamEvents(cfg.Template))
	e := &Emulator{
		log:       log,
		functions: map[string]*function{},
		byFolder:  map[string][]*function{},
		routes:    routes,
		cors:      newCORSPolicy(cors),
		ws:        newWSAPI(cfg.Template),
		accountID: accountID,
		builder:   newBuilder(root, cfg.BuildFlags, log),
		done:      make(chan struct{}),
		removeDir: removeDir,
		output:    cfg.Output,

		buildProgress: cfg.BuildProgress,
	}
	if e.output == nil {
		e.output = os.Stderr
	}
	layers := envLayers{file: file, caller: caller, overrides: cfg.Overrides, log: log}
	for _, fn := range cfg.Template.Functions() {
		f, err := newFunction(cfg.Template, fn, env, buildDir, maxProcs)
		if err != nil {
			return nil, fmt.Errorf("emulator: %w", err)
		}
		if cfg.Timeout > 0 {
			f.timeout = cfg.Timeout
		}
		if f.env, err = layers.environment(cfg.Template, fn, f, env); err != nil {
			return nil, fmt.Errorf("emulator: %w", err)
		}
		e.functions[f.id] = f
		folder := path.Base(f.codeURI)
		e.byFolder[folder] = append(e.byFolder[folder], f)
	}
	return e, nil
}

// lookup finds a function by logical ID or by the folder name of its CodeUri.
func (e *Emulator) lookup(name string) (*function, error) {
	if f, ok := e.functions[name]; ok {
		return f, nil
	}
	switch fs := e.byFolder[name]; len(fs) {
	case 0:
		return nil, fmt.Errorf("%w: %s", ErrUnknownFunction, name)
	case 1:
		return fs[0], nil
	default:
		ids := make([]string, len(fs))
		for i, f := range fs {
			ids[i] = f.id
		}
		return nil, fmt.Errorf("%w: %s is the folder of %s", ErrUnknownFunction, name, strings.Join(ids, ", "))
	}
}

// Close stops every process the emulator started and waits for them, cancels builds in
// progress, and removes the build directory if the emulator created it.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() {
		close(e.done)
		e.builder.close()
		for _, f := range e.functions {
			f.pool.close()
		}
		if e.removeDir != "" {
			if err := os.RemoveAll(e.removeDir); err != nil {
				e.closeErr = fmt.Errorf("remove build dir: %w", err)
			}
		}
	})
	return e.closeErr
}
