package runapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/actionbatch"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/trust"
	"github.com/screenagent/backend/shared/usertime"
)

// The run API's one validation step: each route's HTTP request becomes the run service's request
// here, every field checked and refused with the contract's code (400 VALIDATION_ERROR naming the
// field, 413 and 415 for the body), so the service gets only requests it can act on and keeps
// only the checks that need the stored run (a confirmation id that must match the pending one).

// MaxAnswer bounds the user's text answer, in characters.
const MaxAnswer = 2_000

// maxResultText bounds what is kept of a result's message and error: they only inform the model,
// so a long one (a stack trace) is cut rather than refused.
const maxResultText = 1_000

type startBody struct {
	Task *string `json:"task"`
	Mode *string `json:"mode"`
	// Timezone and Locale are the user's (IANA zone, BCP 47 tag), for the time the model reads.
	Timezone    string   `json:"timezone"`
	Locale      string   `json:"locale"`
	SecretNames []string `json:"secretNames"`
	// Capabilities are what the client can do beyond the basics ("actionBatch").
	Capabilities []string `json:"capabilities"`
}

// DecodeStart reads POST /agent/run/start.
func DecodeStart(r *http.Request, id accounts.Identity) (runs.StartRequest, error) {
	var body startBody
	if err := readBody(r, &body); err != nil {
		return runs.StartRequest{}, err
	}
	req := runs.StartRequest{TenantID: id.TenantID, UserID: id.UserID}
	if body.Task != nil {
		req.Task = strings.TrimSpace(*body.Task)
	}
	switch {
	case req.Task == "":
		return req, httpapi.Validation("task", "is required")
	case utf8.RuneCountInString(req.Task) > runs.MaxTask:
		return req, httpapi.Validation("task", fmt.Sprintf("must be at most %d characters", runs.MaxTask))
	}
	if body.Mode != nil && *body.Mode != "" {
		switch m := runs.Mode(*body.Mode); m {
		case runs.ModeAutonomous, runs.ModeCareful:
			req.Mode = m
		default:
			return req, httpapi.Validation("mode", "must be autonomous or careful")
		}
	}
	clock, err := usertime.Parse(body.Timezone, body.Locale)
	switch {
	case errors.Is(err, usertime.ErrTimezone):
		return req, httpapi.Validation("timezone", err.Error())
	case err != nil:
		return req, httpapi.Validation("locale", err.Error())
	}
	req.Timezone, req.Locale = clock.Name(), clock.Locale
	if req.Batch, err = actionbatch.Declared(body.Capabilities); err != nil {
		return req, httpapi.Validation("capabilities", err.Error())
	}
	if req.SecretNames, err = trust.ParseSecretNames("secretNames", body.SecretNames); err != nil {
		return req, err
	}
	return req, nil
}

type stepBody struct {
	Snapshot         json.RawMessage `json:"snapshot"`
	LastActionResult *resultBody     `json:"lastActionResult"`
	SecretNames      []string        `json:"secretNames"`
	// LastActionResults are the results of each call of the last step's batch, in order.
	LastActionResults []resultBody `json:"lastActionResults"`
	// Cache false opts the step out of the action cache.
	Cache *bool `json:"cache"`
}

// resultBody is the ToolResult of the last action; its data is not read (the snapshot shows the page).
type resultBody struct {
	Success *bool  `json:"success"`
	Message string `json:"message"`
	Error   string `json:"error"`
	// Skipped: a call of a batch the client did not run.
	Skipped bool `json:"skipped"`
}

// DecodeStep reads POST /agent/run/{runId}/step: a JSON object whose fields may all be null or
// absent ({} is a step without news). An empty body is refused like on every other route: it is
// not an object.
func DecodeStep(r *http.Request, id accounts.Identity) (runs.StepRequest, error) {
	req := runs.StepRequest{TenantID: id.TenantID, UserID: id.UserID}
	var err error
	if req.RunID, err = RunID(r); err != nil {
		return req, err
	}
	var body stepBody
	raw, err := readRaw(r, &body)
	if err != nil {
		return req, err
	}
	if req.Snapshot, err = runs.DecodeSnapshot(body.Snapshot); err != nil {
		return req, err
	}
	if body.SecretNames != nil {
		if req.SecretNames, err = trust.ParseSecretNames("secretNames", body.SecretNames); err != nil {
			return req, err
		}
	}
	req.NoCache = body.Cache != nil && !*body.Cache
	if req.LastActionResult, req.LastActionResults, err = readResults(body); err != nil {
		return req, err
	}
	req.IdempotencyKey, req.RequestHash, err = httpapi.IdempotencyKey(r, raw)
	return req, err
}

// readResults reads the client's results of the last step: of its one call, or of each call of
// its batch.
func readResults(body stepBody) (*runs.Result, []runs.Result, error) {
	var last *runs.Result
	if res := body.LastActionResult; res != nil {
		if res.Success == nil {
			return nil, nil, httpapi.Validation("lastActionResult.success", "is required")
		}
		last = &runs.Result{Success: *res.Success, Message: cut(res.Message), Error: cut(res.Error)}
	}
	if len(body.LastActionResults) > actionbatch.Max {
		return nil, nil, httpapi.Validation("lastActionResults", fmt.Sprintf("must have at most %d entries", actionbatch.Max))
	}
	var batch []runs.Result
	for i, res := range body.LastActionResults {
		if res.Success == nil {
			return nil, nil, httpapi.Validation(fmt.Sprintf("lastActionResults[%d].success", i), "is required")
		}
		if res.Skipped && *res.Success {
			return nil, nil, httpapi.Validation(fmt.Sprintf("lastActionResults[%d].skipped", i), "a skipped call cannot have succeeded")
		}
		batch = append(batch, runs.Result{Success: *res.Success, Message: cut(res.Message), Error: cut(res.Error), Skipped: res.Skipped})
	}
	return last, batch, nil
}

type answerBody struct {
	Approved       *bool    `json:"approved"`
	Answer         string   `json:"answer"`
	ConfirmationID string   `json:"confirmationId"`
	SecretNames    []string `json:"secretNames"`
}

// DecodeAnswer reads POST /agent/run/{runId}/answer.
func DecodeAnswer(r *http.Request, id accounts.Identity) (runs.AnswerRequest, error) {
	req := runs.AnswerRequest{TenantID: id.TenantID, UserID: id.UserID}
	var err error
	if req.RunID, err = RunID(r); err != nil {
		return req, err
	}
	var body answerBody
	raw, err := readRaw(r, &body)
	if err != nil {
		return req, err
	}
	if body.Approved == nil {
		return req, httpapi.Validation("approved", "is required")
	}
	req.Approved, req.Answer, req.ConfirmationID = *body.Approved, strings.TrimSpace(body.Answer), body.ConfirmationID
	if n := utf8.RuneCountInString(req.Answer); n > MaxAnswer {
		return req, httpapi.Validation("answer", fmt.Sprintf("must be at most %d characters", MaxAnswer))
	}
	if body.SecretNames != nil {
		if req.SecretNames, err = trust.ParseSecretNames("secretNames", body.SecretNames); err != nil {
			return req, err
		}
	}
	req.IdempotencyKey, req.RequestHash, err = httpapi.IdempotencyKey(r, raw)
	return req, err
}

// readRaw reads the body (ReadBody) into dst and returns it, for the Idempotency-Key's hash.
func readRaw(r *http.Request, dst any) ([]byte, error) {
	raw, err := ReadBody(r)
	if err != nil {
		return nil, err
	}
	return raw, httpapi.Unmarshal(raw, dst)
}

func readBody(r *http.Request, dst any) error {
	_, err := readRaw(r, dst)
	return err
}

func cut(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= maxResultText {
		return s
	}
	return string([]rune(s)[:maxResultText-1]) + "…"
}
