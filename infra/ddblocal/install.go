// Package ddblocal installs and runs Amazon DynamoDB Local, the official emulator, for local runs
// and integration tests. The jar comes from the npm package pinned in infra/dynamodb (no other
// registry serves it) and runs on Java 17, in memory.
package ddblocal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// jarSubdir is where amplify-dynamodb-simulator keeps DynamoDBLocal.jar and DynamoDBLocal_lib.
const jarSubdir = "node_modules/amplify-dynamodb-simulator/emulator"

// RepoRoot returns the repository root: the nearest folder at or above the working directory
// that holds go.mod. Tests run with their package folder as working directory, so this is how
// they find template.yaml and infra/.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repo root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repo root: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// Install makes sure DynamoDB Local is present under dir/node_modules, running `npm ci` in dir
// when it is not, and returns the folder holding DynamoDBLocal.jar. An empty dir means
// <repo root>/infra/dynamodb.
func Install(ctx context.Context, dir string, log io.Writer) (jarDir string, err error) {
	if log == nil {
		log = io.Discard
	}
	if dir == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "infra", "dynamodb")
	}
	jarDir = filepath.Join(dir, jarSubdir)
	if installed(jarDir) {
		return jarDir, nil
	}

	// Test binaries of several packages start at once; without the lock each would run npm ci
	// in the same folder and they would delete each other's node_modules.
	unlock, err := lockFile(ctx, filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("install DynamoDB Local in %s: %w", dir, err)
	}
	defer unlock()
	if installed(jarDir) {
		return jarDir, nil
	}

	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("install DynamoDB Local: npm is not on PATH; install Node.js 20 (with npm) and retry")
	}
	fmt.Fprintf(log, "ddblocal: installing DynamoDB Local (npm ci in %s)\n", dir)
	var out bytes.Buffer
	// No package in the lock file needs an install script; the jar is plain package content.
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install DynamoDB Local: npm ci in %s: %w\n%s", dir, err, strings.TrimSpace(out.String()))
	}
	if !installed(jarDir) {
		return "", fmt.Errorf("install DynamoDB Local: npm ci in %s succeeded but %s has no DynamoDBLocal.jar", dir, jarDir)
	}
	return jarDir, nil
}

func installed(jarDir string) bool {
	jar, err := os.Stat(filepath.Join(jarDir, "DynamoDBLocal.jar"))
	if err != nil || !jar.Mode().IsRegular() {
		return false
	}
	lib, err := os.Stat(filepath.Join(jarDir, "DynamoDBLocal_lib"))
	return err == nil && lib.IsDir()
}

// lockFile takes an exclusive flock on an existing file (so no lock file needs ignoring) and
// returns its release. It gives up when ctx ends.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	locked := make(chan error, 1)
	go func() { locked <- syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }()
	select {
	case err := <-locked:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return func() { f.Close() }, nil
	case <-ctx.Done():
		// Closing the file releases the lock should the blocked Flock still succeed.
		go func() { <-locked; f.Close() }()
		return nil, ctx.Err()
	}
}

// geteuid is replaced in tests to exercise the non-root path as root.
var geteuid = os.Geteuid

// EnsureJava makes sure `java` is on PATH. As root it installs OpenJDK 17 with apt-get; otherwise
// it returns an error naming the command to run.
func EnsureJava(ctx context.Context, log io.Writer) error {
	if _, err := exec.LookPath("java"); err == nil {
		return nil
	}
	if log == nil {
		log = io.Discard
	}
	const hint = "sudo apt-get install -y openjdk-17-jre-headless"
	if geteuid() != 0 {
		return fmt.Errorf("java is not on PATH; DynamoDB Local needs Java 17: run `%s`", hint)
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("java is not on PATH and apt-get is missing; install a Java 17 runtime")
	}
	fmt.Fprintln(log, "ddblocal: installing Java 17 (apt-get install openjdk-17-jre-headless)")
	for _, args := range [][]string{
		{"update"},
		{"install", "-y", "--no-install-recommends", "openjdk-17-jre-headless"},
	} {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("install java: apt-get %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
		}
	}
	if _, err := exec.LookPath("java"); err != nil {
		return fmt.Errorf("install java: openjdk-17-jre-headless installed but java is still not on PATH")
	}
	return nil
}
