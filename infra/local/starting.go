package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// startingRetryAfter is the Retry-After of the answers given while the stack starts.
const startingRetryAfter = 5

// gate answers every request at once while the stack starts — 503 with a JSON body saying what
// it is doing — and hands requests to the API once it is ready. Clients never wait on a
// connection that nothing serves yet.
type gate struct {
	ready atomic.Pointer[http.Handler]
	mu    sync.Mutex
	phase string
}

func newGate(phase string) *gate { return &gate{phase: phase} }

// setPhase says what the stack is doing now, e.g. "building functions (3 of 22)".
func (g *gate) setPhase(phase string) {
	g.mu.Lock()
	g.phase = phase
	g.mu.Unlock()
}

// open sends every later request to h.
func (g *gate) open(h http.Handler) { g.ready.Store(&h) }

// startingBody is the main API's error envelope with status "starting", so that clients of
// either API read a code and a message.
type startingBody struct {
	Success    bool   `json:"success"`
	Code       string `json:"code"`
	Status     string `json:"status"`
	Phase      string `json:"phase"`
	Message    string `json:"message"`
	RetryAfter int    `json:"retryAfter"`
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := g.ready.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	g.mu.Lock()
	phase := g.phase
	g.mu.Unlock()
	body, _ := json.Marshal(startingBody{
		Code:       "SERVICE_UNAVAILABLE",
		Status:     "starting",
		Phase:      phase,
		Message:    fmt.Sprintf("The local stack is starting (%s); retry in a few seconds.", phase),
		RetryAfter: startingRetryAfter,
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(startingRetryAfter))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(body)
}
