// Package llm is what the interact and run engines know of the LLM: the Client interface, its
// requests, replies and errors, one corrective retry on unusable replies, and the configuration
// (which provider, model and endpoint). It links no provider SDK, so a function that only reports
// the configuration (health) or stores runs stays small; the client itself is llm/provider.
package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Client completes a chat. Engines depend on this rather than on *Chat, so their tests can use
// the fake server of llmtest through a real *Chat or substitute their own.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// Role is a chat message's author.
type Role string

// Roles of the chat-completions API.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    Role
	Content string
}

// Request is one chat completion. MaxTokens 0 leaves the limit to the provider; a nil
// Temperature leaves it at the model's default (some reasoning models accept no other).
type Request struct {
	Messages    []Message
	MaxTokens   int
	Temperature *float64
}

// Usage is the token count the provider reported for the successful attempt.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
}

// Response is the model's reply. Latency spans the whole call, retries and waits included;
// Attempts counts the HTTP calls made (1 when the first succeeded).
type Response struct {
	Content  string
	Usage    Usage
	Model    string
	Latency  time.Duration
	Attempts int
}

// Info describes the configured endpoint, for health routes and debug records.
type Info struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	BaseURL  string `json:"baseUrl"`
}

// ErrUnavailable is matched (errors.Is) by every error Complete returns: the LLM gave no usable
// reply, whether it was down, refused the request, or the time ran out. Callers map it to
// LLM_ERROR.
var ErrUnavailable = errors.New("llm unavailable")

// Error is the error Complete returns. Its text never holds credentials, prompts or replies.
type Error struct {
	Provider string
	// StatusCode is the last HTTP status received, 0 when no response came (timeouts,
	// connection errors).
	StatusCode int
	// Code is the provider's error code when it sent a well-formed one (e.g.
	// "context_length_exceeded").
	Code     string
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s: %v", e.Provider, e.Err)
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Attempts == 1 {
		b.WriteString(" after 1 attempt")
	} else {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	return b.String()
}

// Unwrap makes errors.Is match both ErrUnavailable and the cause (e.g. context.DeadlineExceeded).
func (e *Error) Unwrap() []error { return []error{ErrUnavailable, e.Err} }
