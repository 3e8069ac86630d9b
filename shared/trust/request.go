package trust

import (
	"regexp"

	"github.com/screenagent/backend/shared/trust/fold"
)

// Kinds of a request to the user, so that a client can show the right input (a password box, a
// code field, buttons).
const (
	RequestCredentials  = "credentials"
	RequestOneTimeCode  = "one_time_code"
	RequestChoice       = "choice"
	RequestConfirmation = "confirmation"
	RequestInformation  = "information"
)

// UserRequest says what the server asks of the user and in which fields. A secret field is
// answered with the name of a secret the client holds (secretNames), never its value.
type UserRequest struct {
	Type    string         `json:"type"`
	Fields  []RequestField `json:"fields,omitempty"`
	Options []string       `json:"options,omitempty"`
}

// RequestField is one thing to fill in.
type RequestField struct {
	Name   string `json:"name"`
	Label  string `json:"label"`
	Secret bool   `json:"secret,omitempty"`
}

// CredentialsRequest asks for a user name and a password (as secret names).
func CredentialsRequest() *UserRequest {
	return &UserRequest{Type: RequestCredentials, Fields: []RequestField{
		{Name: "username", Label: "User name or email"},
		{Name: "password", Label: "Password", Secret: true},
	}}
}

// OneTimeCodeRequest asks for a one-time code.
func OneTimeCodeRequest() *UserRequest {
	return &UserRequest{Type: RequestOneTimeCode, Fields: []RequestField{{Name: "code", Label: "One-time code", Secret: true}}}
}

// ConfirmationRequest asks the user to approve or decline.
func ConfirmationRequest() *UserRequest {
	return &UserRequest{Type: RequestConfirmation, Options: []string{"approve", "decline"}}
}

// ChoiceRequest asks the user to pick one of the options.
func ChoiceRequest(options []string) *UserRequest {
	return &UserRequest{Type: RequestChoice, Options: options}
}

// InformationRequest asks for free text.
func InformationRequest() *UserRequest {
	return &UserRequest{Type: RequestInformation, Fields: []RequestField{{Name: "answer", Label: "Answer"}}}
}

var oneTimeCode = regexp.MustCompile(`\b(one[ -]?time|otp|2fa|two[ -]factor|verification code|sms code|authenticat\w* code|security code sent|code (we|they) sent)`)

// RequestFor classifies a question the model asks the user: a question about a one-time code
// or a password asks for them as secrets; any other is a request for information. The
// question's words are folded first, so look-alike letters change nothing.
func RequestFor(question string, missing []string) *UserRequest {
	texts := append([]string{question}, missing...)
	for _, t := range texts {
		if oneTimeCode.MatchString(fold.String(t)) {
			return OneTimeCodeRequest()
		}
	}
	if SecretText(texts...) {
		return CredentialsRequest()
	}
	return InformationRequest()
}
