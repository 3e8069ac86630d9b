// Package accounts is the storage-free domain layer of users and sessions: password hashing and
// policy, access tokens and the Authorization header, e-mail normalization, user preferences and
// the identity a verified token resolves to (SERVER_SIDE_AGENT_ARCH.md §2, §3, §9).
package accounts

// ValidationError is every input rejection of this package. It names the offending field and
// says why, phrased to follow the field name ("password must be at least 8 characters"), so the
// HTTP layer can answer 400 VALIDATION_ERROR with both without parsing messages.
type ValidationError struct {
	Field  string
	Reason string
}

func (e *ValidationError) Error() string { return e.Field + " " + e.Reason }

// FieldName returns Field. With FieldReason it satisfies httpapi.FieldError, which maps the
// error to VALIDATION_ERROR without this package importing the HTTP layer.
func (e *ValidationError) FieldName() string { return e.Field }

// FieldReason returns Reason; see FieldName.
func (e *ValidationError) FieldReason() string { return e.Reason }

func invalid(field, reason string) error {
	return &ValidationError{Field: field, Reason: reason}
}
