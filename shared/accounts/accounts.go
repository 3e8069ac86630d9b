// Package accounts is the storage-free domain layer of users and sessions: password hashing and
// policy, access tokens and the Authorization header, e-mail normalization, user preferences and
// the identity a verified token resolves to (SERVER_SIDE_AGENT_ARCH.md §2, §3, §9).
package accounts

import "github.com/screenagent/backend/shared/validation"

// ValidationError is the package's input rejection (validation.Error): it names the field and
// why, and maps to 400 VALIDATION_ERROR at the HTTP edge.
type ValidationError = validation.Error

func invalid(field, reason string) error {
	return &ValidationError{Field: field, Reason: reason}
}
