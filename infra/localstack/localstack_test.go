package localstack

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeRecord writes a stack record as another process would have.
func writeRecord(t *testing.T, root, name string, s Stack) {
	t.Helper()
	if err := os.MkdirAll(Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(Dir(root), name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestFind(t *testing.T) {
	live := Stack{API: "http://127.0.0.1:3100", DynamoDBEndpoint: "http://127.0.0.1:8100", PID: os.Getppid()}
	other := Stack{API: "http://127.0.0.1:3200", DynamoDBEndpoint: "http://127.0.0.1:8200", PID: os.Getppid()}
	dead := Stack{API: "http://127.0.0.1:3000", DynamoDBEndpoint: "http://127.0.0.1:8000", PID: deadPID(t)}
	tests := []struct {
		name    string
		records map[string]Stack
		wantAPI string
		wantErr error
	}{
		{"no record", nil, "", ErrNone},
		{"only a dead stack's record", map[string]Stack{File: dead}, "", ErrNone},
		{"one live stack", map[string]Stack{File: live}, live.API, nil},
		{"a live stack beside a dead one's record", map[string]Stack{File: dead, "stack-7.json": live}, live.API, nil},
		{"two live stacks", map[string]Stack{File: live, "stack-7.json": other}, "", ErrSeveral},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, s := range tc.records {
				writeRecord(t, root, name, s)
			}
			got, err := Find(root, "--endpoint URL")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("got error %v, want %v", err, tc.wantErr)
			}
			if got.API != tc.wantAPI {
				t.Errorf("got API %q, want %q", got.API, tc.wantAPI)
			}
			if err != nil && !strings.Contains(err.Error(), "--endpoint URL") {
				t.Errorf("got %q, want it to name the option that chooses a stack", err)
			}
			if errors.Is(err, ErrSeveral) && !(strings.Contains(err.Error(), live.API) && strings.Contains(err.Error(), other.API)) {
				t.Errorf("got %q, want both stacks listed", err)
			}
		})
	}
}

func TestPublishBesideALiveStack(t *testing.T) {
	root := t.TempDir()
	writeRecord(t, root, File, Stack{API: "http://127.0.0.1:3000", DynamoDBEndpoint: "http://127.0.0.1:8000", PID: os.Getppid()})

	path, remove, err := Publish(root, Stack{API: "http://127.0.0.1:3100", DynamoDBEndpoint: "http://127.0.0.1:8100"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) == File {
		t.Fatalf("got %s, want a record beside the live stack's %s", path, File)
	}
	if stacks, _ := Running(root); len(stacks) != 2 {
		t.Fatalf("got %d running stacks, want 2", len(stacks))
	}
	remove()
	s, err := Find(root, "--endpoint URL")
	if err != nil || s.API != "http://127.0.0.1:3000" {
		t.Errorf("after remove: got %q, %v; want only the first stack", s.API, err)
	}
}

func TestPublishReplacesADeadStacksRecord(t *testing.T) {
	root := t.TempDir()
	writeRecord(t, root, File, Stack{API: "http://127.0.0.1:3000", PID: deadPID(t)})
	path, remove, err := Publish(root, Stack{API: "http://127.0.0.1:3100", Tables: map[string]string{"AccountsTable": "AccountsTable"}})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != File {
		t.Errorf("got %s, want %s (its former owner is gone)", path, File)
	}
	s, err := Find(root, "x")
	if err != nil || s.API != "http://127.0.0.1:3100" || s.PID != os.Getpid() || s.Table("AccountsTable") != "AccountsTable" {
		t.Errorf("got %+v, %v; want this process's record", s, err)
	}
	remove()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after remove: stat %s: %v, want not exist", path, err)
	}
}
