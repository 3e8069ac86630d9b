// Package logging builds the JSON logger every function uses. Lambda's JSON log format reads the
// "level" field, so ApplicationLogLevel filtering works on these lines.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// Levels beyond slog's four, named as Lambda's ApplicationLogLevel names them.
const (
	LevelTrace = slog.Level(-8)
	LevelFatal = slog.Level(12)
)

// ParseLevel reads TRACE, DEBUG, INFO, WARN, ERROR or FATAL (any case); empty means INFO.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "TRACE":
		return LevelTrace, nil
	case "DEBUG":
		return slog.LevelDebug, nil
	case "", "INFO":
		return slog.LevelInfo, nil
	case "WARN", "WARNING":
		return slog.LevelWarn, nil
	case "ERROR":
		return slog.LevelError, nil
	case "FATAL":
		return LevelFatal, nil
	}
	return 0, fmt.Errorf("unknown log level %q (want TRACE, DEBUG, INFO, WARN, ERROR or FATAL)", s)
}

// New returns a JSON logger writing to w at the given level.
func New(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.LevelKey && len(groups) == 0 {
				switch a.Value.Any().(slog.Level) {
				case LevelTrace:
					a.Value = slog.StringValue("TRACE")
				case LevelFatal:
					a.Value = slog.StringValue("FATAL")
				}
			}
			return a
		},
	}))
}
