// Package localstack records where a running local stack (`make run`) listens, so that the tools
// of the same checkout — the admin CLI, the reference thin client — reach that stack rather than
// guessing ports, and say which one they reach.
package localstack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Stack is what a running stack publishes about itself.
type Stack struct {
	// API is the base URL of both APIs, e.g. http://127.0.0.1:3000.
	API string `json:"api"`
	// WebSocket is the base URL of the WebSocket server, when the stack runs one.
	WebSocket        string `json:"websocket,omitempty"`
	DynamoDBEndpoint string `json:"dynamodbEndpoint"`
	// Tables maps the template's logical IDs to the table names the stack created.
	Tables  map[string]string `json:"tables"`
	LogFile string            `json:"logFile,omitempty"`
	PID     int               `json:"pid"`
	Started time.Time         `json:"startedAt"`

	// Path is the file the record was read from.
	Path string `json:"-"`
}

// Describe names the stack for a person: where its API and DynamoDB listen and its record.
func (s Stack) Describe() string {
	return fmt.Sprintf("the local stack of %s (API %s, DynamoDB %s)", s.Path, s.API, s.DynamoDBEndpoint)
}

// Table is the name of the table with logical ID id, or id itself (make run names tables by
// logical ID, as sam local resolves !Ref).
func (s Stack) Table(id string) string {
	if name := s.Tables[id]; name != "" {
		return name
	}
	return id
}

// Dir is where a checkout's stacks publish their records: <root>/.local.
func Dir(root string) string { return filepath.Join(root, ".local") }

// File is the record of the first stack of a checkout; a second stack running at the same time
// writes stack-<pid>.json beside it.
const File = "stack.json"

// ErrNone and ErrSeveral are Find's answers when it cannot name one stack.
var (
	ErrNone    = errors.New("no local stack is running")
	ErrSeveral = errors.New("several local stacks are running")
)

// Publish writes s (with this process's pid) to <root>/.local/stack.json, or beside it when a
// live stack holds that name, and returns the path and a function that removes the record.
func Publish(root string, s Stack) (string, func(), error) {
	s.PID, s.Started = os.Getpid(), time.Now().UTC()
	dir := Dir(root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("publish the stack: %w", err)
	}
	path := filepath.Join(dir, File)
	if other, err := read(path); err == nil && alive(other.PID) && other.PID != s.PID {
		path = filepath.Join(dir, fmt.Sprintf("stack-%d.json", s.PID))
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", nil, err
	}
	// Written whole under a temporary name, so a reader never sees half a record.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return "", nil, fmt.Errorf("publish the stack: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", nil, fmt.Errorf("publish the stack: %w", err)
	}
	return path, func() { _ = os.Remove(path) }, nil
}

// Running returns the live stacks of the checkout at root, the first published first. Records of
// stacks that died without removing them (killed) are ignored.
func Running(root string) ([]Stack, error) {
	paths, err := filepath.Glob(filepath.Join(Dir(root), "stack*.json"))
	if err != nil {
		return nil, err
	}
	var out []Stack
	for _, p := range paths {
		s, err := read(p)
		if err != nil || !alive(s.PID) {
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

// Find returns the one live stack of the checkout at root. With none or several it returns an
// error matching ErrNone or ErrSeveral whose text says what to do; how names the option that
// chooses a stack explicitly (e.g. "--endpoint URL").
func Find(root, how string) (Stack, error) {
	stacks, err := Running(root)
	if err != nil {
		return Stack{}, err
	}
	switch len(stacks) {
	case 1:
		return stacks[0], nil
	case 0:
		return Stack{}, fmt.Errorf("%w in %s (no live %s there): start one with `make run`, or give %s",
			ErrNone, root, filepath.Join(".local", File), how)
	}
	var list []string
	for _, s := range stacks {
		list = append(list, fmt.Sprintf("API %s, DynamoDB %s (%s)", s.API, s.DynamoDBEndpoint, s.Path))
	}
	return Stack{}, fmt.Errorf("%w in %s: %s; choose one with %s", ErrSeveral, root, strings.Join(list, "; "), how)
}

func read(path string) (Stack, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stack{}, err
	}
	var s Stack
	if err := json.Unmarshal(b, &s); err != nil {
		return Stack{}, fmt.Errorf("%s: %w", path, err)
	}
	if s.API == "" || s.PID <= 0 {
		return Stack{}, fmt.Errorf("%s: not a stack record", path)
	}
	s.Path = path
	return s, nil
}

// alive reports whether a process with this pid exists (signal 0 checks without signalling).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
