package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// runLogs keeps the terminal of `make run` to one human line per step: the request and function
// logs (JSON) go to a file, and to the terminal as well only when verbose.
type runLogs struct {
	path    string
	file    *os.File
	verbose bool
	// terminal receives the human lines.
	terminal io.Writer
}

// openRunLogs creates (or empties) .local/logs/run-<port>.log, one file per API port so that two
// stacks of a checkout don't write into one file.
func openRunLogs(root, port string, verbose bool, terminal io.Writer) (*runLogs, error) {
	dir := filepath.Join(root, ".local", "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the log folder: %w", err)
	}
	path := filepath.Join(dir, "run-"+port+".log")
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create the log file: %w", err)
	}
	return &runLogs{path: path, file: f, verbose: verbose, terminal: terminal}, nil
}

// detail is where the JSON logs go.
func (l *runLogs) detail() io.Writer {
	if l.verbose {
		return io.MultiWriter(l.file, l.terminal)
	}
	return l.file
}

// logger writes the local tools' own logs (emulator, builds) as JSON to detail; warnings and
// errors also reach the terminal as one text line, so a failure is never only in the file.
func (l *runLogs) logger() *slog.Logger {
	json := slog.NewJSONHandler(l.detail(), nil)
	if l.verbose {
		return slog.New(json)
	}
	return slog.New(slog.NewMultiHandler(json, slog.NewTextHandler(l.terminal, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// notice is the line that says where the logs are.
func (l *runLogs) notice(root string) string {
	rel, err := filepath.Rel(root, l.path)
	if err != nil {
		rel = l.path
	}
	if l.verbose {
		return fmt.Sprintf("Request and function logs (JSON) are shown here and kept in %s.", rel)
	}
	return fmt.Sprintf("Request and function logs (JSON) go to %s; `make run VERBOSE=1` shows them here too.", rel)
}

func (l *runLogs) Close() error { return l.file.Close() }

// dynamoLog is DynamoDB Local's log: the server's output goes to the file, and the launcher's own
// lines about installing it (npm, Java: minutes on a new machine) to the terminal too, so a first
// start never looks stuck.
func (l *runLogs) dynamoLog() io.Writer {
	if l.verbose {
		return l.detail()
	}
	return &prefixTee{all: l.file, some: l.terminal, prefix: []byte("ddblocal: ")}
}

// prefixTee writes everything to all and the lines that start with prefix to some as well. Its
// writers write whole lines.
type prefixTee struct {
	all, some io.Writer
	prefix    []byte
}

func (t *prefixTee) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		if bytes.HasPrefix(line, t.prefix) {
			t.some.Write(line)
		}
	}
	return t.all.Write(p)
}
