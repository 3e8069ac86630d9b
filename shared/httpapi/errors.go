// Package httpapi is the HTTP edge shared by every function of the main API: the response
// envelope, the contract's error codes and their statuses, request decoding and request logging.
package httpapi

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/aws/smithy-go"
)

// Code is an error code of the contract (SERVER_SIDE_AGENT_ARCH.md §4.16, §14.8).
type Code string

// The contract's error codes. The status each one answers with is in statuses.
const (
	CodeUnauthorized         Code = "UNAUTHORIZED"
	CodeForbidden            Code = "FORBIDDEN"
	CodeInvalidCredentials   Code = "INVALID_CREDENTIALS"
	CodeAccountDisabled      Code = "ACCOUNT_DISABLED"
	CodeValidation           Code = "VALIDATION_ERROR"
	CodeInvalidActionFormat  Code = "INVALID_ACTION_FORMAT"
	CodeInvalidRequest       Code = "INVALID_REQUEST"
	CodePayloadTooLarge      Code = "PAYLOAD_TOO_LARGE"
	CodeRateLimit            Code = "RATE_LIMIT"
	CodeQuotaExceeded        Code = "QUOTA_EXCEEDED"
	CodeNotFound             Code = "NOT_FOUND"
	CodeSessionNotFound      Code = "SESSION_NOT_FOUND"
	CodeTaskNotFound         Code = "TASK_NOT_FOUND"
	CodeTaskCompleted        Code = "TASK_COMPLETED"
	CodeResourceConflict     Code = "RESOURCE_CONFLICT"
	CodeMaxStepsExceeded     Code = "MAX_STEPS_EXCEEDED"
	CodeInternal             Code = "INTERNAL_ERROR"
	CodeLLM                  Code = "LLM_ERROR"
	CodeDatabase             Code = "DATABASE_ERROR"
	CodeParse                Code = "PARSE_ERROR"
	CodeExternalService      Code = "EXTERNAL_SERVICE_ERROR"
	CodeTimeout              Code = "TIMEOUT"
	CodeServiceUnavailable   Code = "SERVICE_UNAVAILABLE"
	CodeUnsupportedMediaType Code = "UNSUPPORTED_MEDIA_TYPE"
)

var statuses = map[Code]int{
	CodeUnauthorized:         http.StatusUnauthorized,
	CodeForbidden:            http.StatusForbidden,
	CodeInvalidCredentials:   http.StatusUnauthorized,
	CodeAccountDisabled:      http.StatusForbidden,
	CodeValidation:           http.StatusBadRequest,
	CodeInvalidActionFormat:  http.StatusBadRequest,
	CodeInvalidRequest:       http.StatusBadRequest,
	CodePayloadTooLarge:      http.StatusRequestEntityTooLarge,
	CodeRateLimit:            http.StatusTooManyRequests,
	CodeQuotaExceeded:        http.StatusTooManyRequests,
	CodeNotFound:             http.StatusNotFound,
	CodeSessionNotFound:      http.StatusNotFound,
	CodeTaskNotFound:         http.StatusNotFound,
	CodeTaskCompleted:        http.StatusConflict,
	CodeResourceConflict:     http.StatusConflict,
	CodeMaxStepsExceeded:     http.StatusBadRequest,
	CodeInternal:             http.StatusInternalServerError,
	CodeLLM:                  http.StatusInternalServerError,
	CodeDatabase:             http.StatusInternalServerError,
	CodeParse:                http.StatusInternalServerError,
	CodeExternalService:      http.StatusInternalServerError,
	CodeTimeout:              http.StatusGatewayTimeout,
	CodeServiceUnavailable:   http.StatusServiceUnavailable,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
}

// Codes returns every code of the contract, for checks that each one is documented.
func Codes() []Code {
	return slices.Sorted(maps.Keys(statuses))
}

// Status is the HTTP status the code answers with; unknown codes are 500.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is an error that reaches the client in the contract's format. Cause is logged, never sent.
type Error struct {
	Code       Code
	Message    string
	Details    map[string]any
	RetryAfter int
	Cause      error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// Status is the HTTP status of the error's code.
func (e *Error) Status() int { return e.Code.Status() }

// NewError returns an error with a code and a message for the client.
func NewError(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Wrap returns an error with a code and a client message whose cause is logged but not sent.
// Server errors use it so that their bodies never leak internals.
func Wrap(code Code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

// Validation is a 400 VALIDATION_ERROR naming the offending field and why.
func Validation(field, reason string) *Error {
	return &Error{
		Code:    CodeValidation,
		Message: fmt.Sprintf("Invalid request: %s %s", field, reason),
		Details: map[string]any{"field": field, "reason": reason},
	}
}

// FieldError is implemented by domain validation errors, so they map to VALIDATION_ERROR without
// the domain packages importing this one.
type FieldError interface {
	error
	FieldName() string
	FieldReason() string
}

// AsError turns any error into the *Error that is sent: an *Error as it is, a FieldError as
// VALIDATION_ERROR, a failed DynamoDB call as DATABASE_ERROR, anything else as a generic 500
// INTERNAL_ERROR. The cause stays on the error for the log line.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var fe FieldError
	if errors.As(err, &fe) {
		v := Validation(fe.FieldName(), fe.FieldReason())
		v.Cause = err
		return v
	}
	var op *smithy.OperationError
	if errors.As(err, &op) && op.ServiceID == "DynamoDB" {
		return Wrap(CodeDatabase, "A database error occurred.", err)
	}
	return Wrap(CodeInternal, "An internal error occurred.", err)
}
