package emulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

const (
	runtimeAPIPrefix = "/2018-06-01/runtime"
	// maxResponse is Lambda's limit on the response payload of a synchronous invocation.
	maxResponse = 6 << 20
	// maxErrorBody bounds what is read of a posted error; Lambda's own limit is larger, but an
	// error beyond this is not worth keeping in memory locally.
	maxErrorBody = 1 << 20
)

// invocation is one event handed to a process through `next`.
type invocation struct {
	id       string
	payload  []byte
	deadline time.Time
	traceID  string
	// taken is set once a `next` has handed the invocation to the runtime.
	taken  atomic.Bool
	result chan result // buffered: the runtime answers at most once
}

type result struct {
	payload []byte
	err     *FunctionError
}

// runtimeAPI is the Lambda Runtime API of one process. Each process has its own listener, so
// its `next` only ever receives its own invocations.
type runtimeAPI struct {
	addr    string
	arn     string
	srv     *http.Server
	pending chan *invocation // capacity 1: a process runs one invocation at a time
	// ready is closed at the first `next`: the runtime has finished its init, at readyAt.
	ready     chan struct{}
	readyAt   time.Time
	readyOnce sync.Once
	initErr   chan *FunctionError

	mu      sync.Mutex
	current *invocation // handed out by `next`, until its response or error arrives
}

func newRuntimeAPI(arn string) (*runtimeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("runtime API listener: %w", err)
	}
	a := &runtimeAPI{
		addr:    ln.Addr().String(),
		arn:     arn,
		pending: make(chan *invocation, 1),
		ready:   make(chan struct{}),
		initErr: make(chan *FunctionError, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+runtimeAPIPrefix+"/invocation/next", a.next)
	mux.HandleFunc("POST "+runtimeAPIPrefix+"/invocation/{id}/response", a.response)
	mux.HandleFunc("POST "+runtimeAPIPrefix+"/invocation/{id}/error", a.invocationError)
	mux.HandleFunc("POST "+runtimeAPIPrefix+"/init/error", a.initError)
	a.srv = &http.Server{Handler: mux}
	go a.srv.Serve(ln) // returns once close is called
	return a, nil
}

// close stops the listener and drops connections, which also ends a blocked `next`.
func (a *runtimeAPI) close() {
	a.srv.Close()
}

func (a *runtimeAPI) next(w http.ResponseWriter, r *http.Request) {
	a.readyOnce.Do(func() {
		a.readyAt = time.Now()
		close(a.ready)
	})
	var inv *invocation
	select {
	case inv = <-a.pending:
	case <-r.Context().Done():
		return
	}
	inv.taken.Store(true)
	a.mu.Lock()
	a.current = inv
	a.mu.Unlock()
	h := w.Header()
	h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
	h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(inv.deadline.UnixMilli(), 10))
	h.Set("Lambda-Runtime-Invoked-Function-Arn", a.arn)
	h.Set("Lambda-Runtime-Trace-Id", inv.traceID)
	h.Set("Content-Type", "application/json")
	w.Write(inv.payload)
}

func (a *runtimeAPI) response(w http.ResponseWriter, r *http.Request) {
	inv := a.finish(r.PathValue("id"))
	if inv == nil {
		writeRuntimeStatus(w, http.StatusBadRequest, "InvalidRequestID", "no invocation in progress has this request ID")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxResponse+1))
	switch {
	case err != nil:
		inv.result <- result{err: &FunctionError{Type: "Runtime.ResponseError", Message: err.Error()}}
	case len(body) > maxResponse:
		msg := fmt.Sprintf("Response payload size exceeded maximum allowed payload size (%d bytes).", maxResponse)
		inv.result <- result{err: &FunctionError{Type: "Function.ResponseSizeTooLarge", Message: msg}}
		writeRuntimeStatus(w, http.StatusRequestEntityTooLarge, "Function.ResponseSizeTooLarge", msg)
		return
	default:
		inv.result <- result{payload: body}
	}
	writeRuntimeStatus(w, http.StatusAccepted, "", "")
}

func (a *runtimeAPI) invocationError(w http.ResponseWriter, r *http.Request) {
	inv := a.finish(r.PathValue("id"))
	if inv == nil {
		writeRuntimeStatus(w, http.StatusBadRequest, "InvalidRequestID", "no invocation in progress has this request ID")
		return
	}
	inv.result <- result{err: readFunctionError(r)}
	writeRuntimeStatus(w, http.StatusAccepted, "", "")
}

func (a *runtimeAPI) initError(w http.ResponseWriter, r *http.Request) {
	select {
	case a.initErr <- readFunctionError(r):
	default: // only the first init error counts
	}
	writeRuntimeStatus(w, http.StatusAccepted, "", "")
}

// finish takes the invocation in progress if id names it, so each gets one answer.
func (a *runtimeAPI) finish(id string) *invocation {
	a.mu.Lock()
	defer a.mu.Unlock()
	inv := a.current
	if inv == nil || inv.id != id {
		return nil
	}
	a.current = nil
	return inv
}

// readFunctionError decodes the error JSON runtimes post; a body that is not that JSON is kept
// as the message.
func readFunctionError(r *http.Request) *FunctionError {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxErrorBody))
	var fe FunctionError
	if err := json.Unmarshal(body, &fe); err != nil || fe == (FunctionError{}) {
		fe = FunctionError{Message: string(body)}
	}
	if fe.Type == "" {
		fe.Type = r.Header.Get("Lambda-Runtime-Function-Error-Type")
	}
	if fe.Type == "" {
		fe.Type = "Unhandled"
	}
	return &fe
}

// writeRuntimeStatus answers like the Runtime API: {"status":"OK"} when accepted, otherwise an
// error document.
func writeRuntimeStatus(w http.ResponseWriter, status int, errorType, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if status == http.StatusAccepted {
		io.WriteString(w, `{"status":"OK"}`)
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"errorType": errorType, "errorMessage": message})
}
