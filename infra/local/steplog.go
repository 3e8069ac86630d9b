package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// stepLog forwards the functions' output unchanged to raw (the log file) and, for the request
// line of an agent step (interact or the run API) or an error line, writes one line a person can
// follow to dst (the terminal):
//
//	step  task 7c1e0a52 #2  click(2) -> active  (200, 812 ms)
//
// The emulator writes whole lines, so each Write holds complete lines.
type stepLog struct {
	mu  sync.Mutex
	raw io.Writer
	dst io.Writer
}

// requestLine holds the fields of a function's request log line that a step line shows.
type requestLine struct {
	Level      string `json:"level"`
	Msg        string `json:"msg"`
	Route      string `json:"route"`
	Error      string `json:"error"`
	TaskID     string `json:"taskId"`
	RunID      string `json:"runId"`
	Step       *int   `json:"step"`
	Action     string `json:"action"`
	TaskStatus string `json:"taskStatus"`
	Status     int    `json:"status"`
	DurationMs int64  `json:"durationMs"`
}

func (s *stepLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.raw.Write(p); err != nil {
		return 0, err
	}
	for line := range bytes.Lines(p) {
		if summary := stepSummary(line); summary != "" {
			fmt.Fprintln(s.dst, summary)
		}
	}
	return len(p), nil
}

// stepSummary is the readable line for a request log line of an agent step or for a warning or
// error, or "".
func stepSummary(line []byte) string {
	line = bytes.TrimSpace(line)
	if !bytes.HasPrefix(line, []byte("{")) || !(bytes.Contains(line, []byte(`"action"`)) || bytes.Contains(line, []byte(`"ERROR"`)) || bytes.Contains(line, []byte(`"WARN"`))) {
		return ""
	}
	var l requestLine
	if json.Unmarshal(line, &l) != nil {
		return ""
	}
	// Warnings and errors are rare and each says something to act on (e.g. no model configured).
	if l.Level == "ERROR" || l.Level == "WARN" {
		return strings.Join(strings.Fields(strings.Join([]string{strings.ToLower(l.Level), l.Route, l.Msg, l.Error}, " ")), " ")
	}
	if l.Msg != "request" || l.Step == nil || l.Action == "" {
		return ""
	}
	subject := "task " + short(l.TaskID)
	if l.TaskID == "" {
		subject = "run " + short(l.RunID)
	}
	outcome := l.Action
	if l.TaskStatus != "" {
		outcome += " -> " + l.TaskStatus
	}
	return fmt.Sprintf("step  %s #%d  %s  (%d, %d ms)", subject, *l.Step, outcome, l.Status, l.DurationMs)
}

// short is the first block of a UUID, enough to tell tasks apart in a terminal.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
