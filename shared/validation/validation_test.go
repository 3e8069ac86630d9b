package validation

import (
	"errors"
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

func TestParseID(t *testing.T) {
	const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
	cases := []struct{ name, in, want string }{
		{"canonical", id, id},
		{"upper case is lowered", "0F8FAD5B-D9CB-469F-A165-70867728950E", id},
		{"urn prefix", "urn:uuid:" + id, ""},
		{"braces", "{" + id + "}", ""},
		{"no dashes", "0f8fad5bd9cb469fa16570867728950e", ""},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseID("runId", tc.in)
			if tc.want == "" {
				var e *Error
				if !errors.As(err, &e) || e.Field != "runId" {
					t.Fatalf("ParseID(%q): got error %v, want a validation error on runId", tc.in, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseID(%q): got %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
