package emulator

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/screenagent/backend/shared/sam"
)

// Lambda's defaults for properties a template may leave out.
const (
	defaultTimeoutSeconds = 3
	defaultMemoryMB       = 128
)

// function is one template function, resolved once so every process starts the same way.
type function struct {
	id       string
	name     string // AWS_LAMBDA_FUNCTION_NAME: the physical name !Ref yields
	arn      string
	codeURI  string
	handler  string
	memoryMB int
	timeout  time.Duration
	taskRoot string // the folder of its bootstrap, as /var/task in Lambda
	// env is the process environment except AWS_LAMBDA_RUNTIME_API, which is per process.
	env  map[string]string
	pool *pool
}

func newFunction(t *sam.Template, fn sam.Function, env sam.Env, buildDir string, maxProcs int) (*function, error) {
	timeout, err := resolveInt(t, fn.Timeout, env, defaultTimeoutSeconds)
	if err != nil {
		return nil, fmt.Errorf("%s Timeout: %w", fn.LogicalID, err)
	}
	memory, err := resolveInt(t, fn.MemorySize, env, defaultMemoryMB)
	if err != nil {
		return nil, fmt.Errorf("%s MemorySize: %w", fn.LogicalID, err)
	}
	name, err := t.ResolveString(sam.Intrinsic{Name: "Ref", Arg: fn.LogicalID}, env)
	if err != nil {
		return nil, fmt.Errorf("%s name: %w", fn.LogicalID, err)
	}
	region, err := t.ResolveString(sam.Intrinsic{Name: "Ref", Arg: "AWS::Region"}, env)
	if err != nil {
		return nil, err
	}
	account, err := t.ResolveString(sam.Intrinsic{Name: "Ref", Arg: "AWS::AccountId"}, env)
	if err != nil {
		return nil, err
	}
	return &function{
		id:       fn.LogicalID,
		name:     name,
		arn:      fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", region, account, name),
		codeURI:  fn.CodeURI,
		handler:  fn.Handler,
		memoryMB: memory,
		timeout:  time.Duration(timeout) * time.Second,
		taskRoot: filepath.Join(buildDir, fn.LogicalID),
		pool:     newPool(maxProcs),
	}, nil
}

func (f *function) bootstrap() string {
	return filepath.Join(f.taskRoot, "bootstrap")
}

func resolveInt(t *sam.Template, v any, env sam.Env, fallback int) (int, error) {
	if v == nil {
		return fallback, nil
	}
	s, err := t.ResolveString(v, env)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive integer, got %q", s)
	}
	return n, nil
}
