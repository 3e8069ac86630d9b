// Package validation is the input-rejection error every domain package returns: it names the
// offending field and says why, phrased to follow the field name ("password must be at least 8
// characters"). It satisfies httpapi.FieldError, so the HTTP edge answers 400 VALIDATION_ERROR
// with both, without the domain packages importing the HTTP layer.
package validation

import (
	"strings"

	"github.com/google/uuid"
)

// Error is an input rejection.
type Error struct {
	Field  string
	Reason string
}

func (e *Error) Error() string { return e.Field + " " + e.Reason }

// FieldName is the offending field, e.g. snapshot.elements[3].text.
func (e *Error) FieldName() string { return e.Field }

// FieldReason says what is wrong with it.
func (e *Error) FieldReason() string { return e.Reason }

// ParseID checks that v is a UUID in its canonical form (any case) and returns it in lower case,
// the form the server issues; field names the parameter in the 400.
func ParseID(field, v string) (string, error) {
	id, err := uuid.Parse(v)
	// uuid.Parse also takes braces, a urn: prefix and no dashes: only the canonical form is an ID.
	if err != nil || id.String() != strings.ToLower(v) {
		return "", &Error{Field: field, Reason: "must be a UUID"}
	}
	return id.String(), nil
}
