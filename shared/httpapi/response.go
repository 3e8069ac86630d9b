package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
)

type successBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

type errorBody struct {
	Success    bool           `json:"success"`
	Code       Code           `json:"code"`
	Message    string         `json:"message"`
	Details    map[string]any `json:"details,omitempty"`
	RetryAfter int            `json:"retryAfter,omitempty"`
}

// WriteJSON writes v as a JSON body with the status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		// Only a programming error (an unmarshalable type) gets here.
		slog.Error("encode response", "error", err)
		status = http.StatusInternalServerError
		body = []byte(`{"success":false,"code":"INTERNAL_ERROR","message":"An internal error occurred."}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteData writes the success envelope {"success": true, "data": data}.
func WriteData(w http.ResponseWriter, status int, data any) {
	WriteJSON(w, status, successBody{Success: true, Data: data})
}

// WriteError writes err in the error envelope. A RetryAfter also sets the Retry-After header.
// The cause of a server error is recorded for the request's log line, never sent.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e := AsError(err)
	if e.Cause != nil || e.Status() >= 500 {
		recordError(r, e)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	WriteJSON(w, e.Status(), errorBody{Code: e.Code, Message: e.Message, Details: e.Details, RetryAfter: e.RetryAfter})
}

// HandlerFunc is an HTTP handler that returns its error instead of writing it, so that each
// error is mapped to the contract in exactly one place.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

func (h HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		WriteError(w, r, err)
	}
}
