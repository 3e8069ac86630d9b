package agent

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/screenagent/backend/shared/actionbatch"
	"github.com/screenagent/backend/shared/tasks"
	"github.com/screenagent/backend/shared/trust"
	"github.com/screenagent/backend/shared/usertime"
	"github.com/screenagent/backend/shared/validation"
)

// Limits of an interact request, in characters (DESIGN.md "Limits").
const (
	MaxURL          = 2048
	MaxQuery        = 10_000
	MaxDOM          = 500_000
	MaxErrorMessage = 2_000
	MaxErrorCode    = 100
	MaxErrorAction  = 1_000
	// MaxConfirmationID bounds a confirmationId (the gate's are 35 characters).
	MaxConfirmationID = 100
)

// Input is the body of POST /api/agent/interact as the client sent it; NewRequest validates it.
type Input struct {
	URL              *string            `json:"url"`
	Query            *string            `json:"query"`
	DOM              *string            `json:"dom"`
	TaskID           string             `json:"taskId"`
	SessionID        string             `json:"sessionId"`
	LastActionStatus string             `json:"lastActionStatus"`
	LastActionError  *tasks.ActionError `json:"lastActionError"`
	// ExtractedVariables are values the client kept for the task (SERVER_QA_ROADMAP.md §3).
	ExtractedVariables map[string]string `json:"extractedVariables"`
	// Mode is careful or autonomous (the default).
	Mode string `json:"mode"`
	// ConfirmationID approves the action the payment gate held at the task's last step.
	ConfirmationID string `json:"confirmationId"`
	// Timezone and Locale are the user's (IANA zone, BCP 47 tag): the prompt shows local time.
	Timezone string `json:"timezone"`
	Locale   string `json:"locale"`
	// SecretNames are the secrets the client holds ("name" or "name@origin"), never their values.
	SecretNames []string `json:"secretNames"`
	// Capabilities are what the client can do beyond the contract's basics ("actionBatch").
	Capabilities []string `json:"capabilities"`
	// LastActionResults are the outcomes of each action of the last answer's batch.
	LastActionResults []tasks.ActionResult `json:"lastActionResults"`
	// Cache false opts the request out of the action cache.
	Cache *bool `json:"cache"`
}

// NewRequest validates an interact request's body against the limits and returns the request it
// makes: the query trimmed, the IDs lower-cased, the report on the last action read. The caller
// adds the identity, the idempotency key and the debug flag. A rejection is a *validation.Error
// naming the field; the fields are checked in the order below, so the first bad one is named.
func NewRequest(in Input) (Request, error) {
	if err := checkPage(in); err != nil {
		return Request{}, err
	}
	if err := checkIDs(in.TaskID, in.SessionID); err != nil {
		return Request{}, err
	}
	batch, err := actionbatch.Declared(in.Capabilities)
	if err != nil {
		return Request{}, invalid("capabilities", err.Error())
	}
	report, err := readReport(in)
	if err != nil {
		return Request{}, err
	}
	if err := ValidateVariables(in.ExtractedVariables); err != nil {
		return Request{}, err
	}
	if err := checkModeAndConfirmation(in); err != nil {
		return Request{}, err
	}
	clock, secrets, err := readUser(in)
	if err != nil {
		return Request{}, err
	}
	return Request{
		Clock: clock,
		URL:   *in.URL, Query: strings.TrimSpace(*in.Query), DOM: *in.DOM,
		TaskID: strings.ToLower(in.TaskID), SessionID: strings.ToLower(in.SessionID), Report: report,
		Variables: in.ExtractedVariables, Mode: cmp.Or(in.Mode, ModeAutonomous), ConfirmationID: in.ConfirmationID, Batch: batch,
		SecretNames: secrets,
		NoCache:     in.Cache != nil && !*in.Cache,
	}, nil
}

// checkPage checks what the client saw and was asked: the page's URL, the task and the DOM.
func checkPage(in Input) error {
	switch {
	case in.URL == nil || *in.URL == "":
		return invalid("url", "is required")
	case len(*in.URL) > MaxURL:
		return tooLong("url", MaxURL)
	}
	u, err := url.Parse(*in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("url", "must be an absolute http(s) URL")
	}
	switch {
	case in.Query == nil || strings.TrimSpace(*in.Query) == "":
		return invalid("query", "is required")
	case utf8.RuneCountInString(*in.Query) > MaxQuery:
		return tooLong("query", MaxQuery)
	case in.DOM == nil || strings.TrimSpace(*in.DOM) == "":
		return invalid("dom", "is required")
	case utf8.RuneCountInString(*in.DOM) > MaxDOM:
		return tooLong("dom", MaxDOM)
	}
	return nil
}

// checkIDs checks the task and session IDs, when given: canonical UUIDs in either case.
func checkIDs(taskID, sessionID string) error {
	for _, f := range []struct{ name, value string }{{"taskId", taskID}, {"sessionId", sessionID}} {
		if f.value == "" {
			continue
		}
		if parsed, err := uuid.Parse(f.value); err != nil || parsed.String() != strings.ToLower(f.value) {
			return invalid(f.name, "must be a UUID")
		}
	}
	return nil
}

// readReport reads the client's report on its last action or batch; nil when it sent none.
func readReport(in Input) (*tasks.Report, error) {
	status, lastErr, err := fromResults(in.LastActionStatus, in.LastActionError, in.LastActionResults)
	if err != nil {
		return nil, err
	}
	report, err := validateReport(status, lastErr)
	if err != nil {
		return nil, err
	}
	if report != nil {
		report.Results = in.LastActionResults
	}
	return report, nil
}

// checkModeAndConfirmation checks the mode and the confirmation that approves an action the gate held.
func checkModeAndConfirmation(in Input) error {
	switch {
	case in.Mode != "" && in.Mode != ModeCareful && in.Mode != ModeAutonomous:
		return invalid("mode", "must be careful or autonomous")
	case len(in.ConfirmationID) > MaxConfirmationID:
		return tooLong("confirmationId", MaxConfirmationID)
	case in.ConfirmationID != "" && in.TaskID == "":
		return invalid("confirmationId", "approves an action of a task: send it with the task's taskId")
	}
	return nil
}

// readUser reads the user's clock (zone and locale) and the names of the secrets they hold.
func readUser(in Input) (usertime.Clock, []trust.NamedSecret, error) {
	clock, err := usertime.Parse(in.Timezone, in.Locale)
	switch {
	case errors.Is(err, usertime.ErrTimezone):
		return usertime.Clock{}, nil, invalid("timezone", err.Error())
	case err != nil:
		return usertime.Clock{}, nil, invalid("locale", err.Error())
	}
	if in.SecretNames == nil {
		return clock, nil, nil
	}
	secrets, err := trust.ParseSecretNames("secretNames", in.SecretNames)
	if err != nil {
		return usertime.Clock{}, nil, err
	}
	return clock, secrets, nil
}

// validateReport reads the client's report on its last action. An error without a status means
// the action failed.
func validateReport(status string, e *tasks.ActionError) (*tasks.Report, error) {
	switch status {
	case "":
		if e == nil {
			return nil, nil
		}
		status = "failure"
	case "success":
		if e != nil {
			return nil, invalid("lastActionError", "must be absent when lastActionStatus is success")
		}
	case "failure":
	default:
		return nil, invalid("lastActionStatus", "must be success or failure")
	}
	if err := checkActionError("lastActionError", e); err != nil {
		return nil, err
	}
	return &tasks.Report{Status: status, Error: e}, nil
}

// checkActionError checks a client's error report against the limits; field names it.
func checkActionError(field string, e *tasks.ActionError) error {
	switch {
	case e == nil:
		return nil
	case utf8.RuneCountInString(e.Message) > MaxErrorMessage:
		return tooLong(field+".message", MaxErrorMessage)
	case utf8.RuneCountInString(e.Code) > MaxErrorCode:
		return tooLong(field+".code", MaxErrorCode)
	case utf8.RuneCountInString(e.Action) > MaxErrorAction:
		return tooLong(field+".action", MaxErrorAction)
	case e.ElementID != nil && *e.ElementID < 0:
		return invalid(field+".elementId", "must not be negative")
	}
	return nil
}

func invalid(field, reason string) error { return &validation.Error{Field: field, Reason: reason} }

func tooLong(field string, limit int) error {
	return invalid(field, fmt.Sprintf("must be at most %d characters", limit))
}
