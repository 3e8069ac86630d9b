package validation

import (
	"fmt"
	"testing"

	"github.com/screenagent/backend/shared/httpapi"
)

func TestMapsToValidationError(t *testing.T) {
	err := fmt.Errorf("save: %w", &Error{Field: "theme", Reason: "must be light, dark or system"})
	e := httpapi.AsError(err)
	if e.Code != httpapi.CodeValidation || e.Details["field"] != "theme" || e.Details["reason"] != "must be light, dark or system" {
		t.Errorf("AsError() = %s %v, want VALIDATION_ERROR naming theme and the reason", e.Code, e.Details)
	}
	if got, want := err.Error(), "save: theme must be light, dark or system"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
