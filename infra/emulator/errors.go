package emulator

import "errors"

var (
	// ErrUnknownFunction means no function has the given logical ID or CodeUri folder name.
	ErrUnknownFunction = errors.New("unknown function")
	// ErrTimeout means an invocation ran past the function's Timeout; its process was killed.
	ErrTimeout = errors.New("task timed out")

	// errClosed is returned for work asked of an emulator after Close.
	errClosed = errors.New("emulator closed")
	// errNotStarted means a process exited before taking an invocation, which can go elsewhere.
	errNotStarted = errors.New("runtime exited before taking the invocation")
)

// FunctionError is an error the function reported through the Runtime API (the JSON that
// aws-lambda-go posts when a handler returns an error or panics).
type FunctionError struct {
	Type    string `json:"errorType"`
	Message string `json:"errorMessage"`
}

func (e *FunctionError) Error() string {
	return e.Type + ": " + e.Message
}
