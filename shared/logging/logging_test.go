package logging

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestParseLevel(t *testing.T) {
	cases := map[string]slog.Level{"": slog.LevelInfo, "trace": LevelTrace, "DEBUG": slog.LevelDebug,
		"Info": slog.LevelInfo, "WARN": slog.LevelWarn, "ERROR": slog.LevelError, "FATAL": LevelFatal}
	for in, want := range cases {
		got, err := ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v, nil", in, got, err, want)
		}
	}
	if _, err := ParseLevel("verbose"); err == nil {
		t.Errorf("ParseLevel(verbose) error = nil, want an error")
	}
}

func TestNewWritesLambdaLevelNames(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, LevelTrace)
	l.Log(t.Context(), LevelTrace, "t")
	l.Info("i")
	var names []string
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		names = append(names, m["level"].(string))
	}
	if len(names) != 2 || names[0] != "TRACE" || names[1] != "INFO" {
		t.Errorf("levels = %v, want [TRACE INFO]", names)
	}
}
