package emulator

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitDuration(t *testing.T) {
	e, _, _ := startEmulator(t, Config{Overrides: map[string]string{"INIT_MARKER": filepath.Join(t.TempDir(), "missing")}})
	d, err := e.InitDuration(context.Background(), "EchoFunction")
	if err != nil || d <= 0 {
		t.Fatalf("InitDuration(EchoFunction) = %v, %v; want a positive duration", d, err)
	}
	if _, err := e.InitDuration(context.Background(), "InitFailFunction"); err == nil || !strings.Contains(err.Error(), "marker missing") {
		t.Errorf("InitDuration(InitFailFunction) error = %v, want the init failure with the process's output", err)
	}
	if _, err := e.InitDuration(context.Background(), "NoSuchFunction"); err == nil {
		t.Error("InitDuration(NoSuchFunction) succeeded, want ErrUnknownFunction")
	}
}

func TestBuildFlagsReachGoBuild(t *testing.T) {
	e, err := New(Config{Template: template, Root: "testdata", BuildDir: t.TempDir(), BuildFlags: []string{"-no-such-flag"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Build(context.Background(), "EchoFunction"); err == nil {
		t.Error("Build with an unknown go build flag succeeded, want the flag passed to go build and refused")
	}
}
