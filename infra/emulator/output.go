package emulator

import (
	"bytes"
	"io"
	"sync"
)

const (
	// outputTail is how much of a process's latest output is kept for logging a failed init.
	outputTail = 4 << 10
	// maxPartialLine is how much of an unfinished line is held back before it is forwarded anyway.
	maxPartialLine = 64 << 10
)

// output forwards a process's stdout and stderr unchanged, whole lines per write so that the
// JSON lines of concurrent processes don't interleave, and keeps the latest bytes for logging
// why an init failed.
type output struct {
	dst     io.Writer
	mu      sync.Mutex
	partial []byte
	recent  []byte
}

// Write never fails: an error would make the process's own writes fail, and losing a log line
// must not change how a function behaves.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recent = append(o.recent, p...)
	if len(o.recent) > 2*outputTail {
		o.recent = append([]byte(nil), o.recent[len(o.recent)-outputTail:]...)
	}
	o.partial = append(o.partial, p...)
	if i := bytes.LastIndexByte(o.partial, '\n'); i >= 0 {
		o.dst.Write(o.partial[:i+1])
		o.partial = append(o.partial[:0], o.partial[i+1:]...)
	} else if len(o.partial) > maxPartialLine {
		o.dst.Write(o.partial)
		o.partial = o.partial[:0]
	}
	return len(p), nil
}

// flush forwards an unfinished last line once the process has exited.
func (o *output) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.partial) > 0 {
		o.dst.Write(o.partial)
		o.partial = nil
	}
}

func (o *output) tail() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.recent
	if len(t) > outputTail {
		t = t[len(t)-outputTail:]
	}
	return string(t)
}
