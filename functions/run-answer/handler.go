package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
	"github.com/screenagent/backend/shared/trust"
)

type answerer interface {
	Answer(ctx context.Context, req runs.AnswerRequest) (runs.StepResponse, error)
}

type answerBody struct {
	Approved       *bool    `json:"approved"`
	Answer         string   `json:"answer"`
	ConfirmationID string   `json:"confirmationId"`
	SecretNames    []string `json:"secretNames"`
}

func newHandler(svc answerer) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		runID, err := runapi.RunID(r)
		if err != nil {
			return err
		}
		raw, err := runapi.ReadBody(r)
		if err != nil {
			return err
		}
		var body answerBody
		if err := httpapi.Unmarshal(raw, &body); err != nil {
			return err
		}
		if body.Approved == nil {
			return httpapi.Validation("approved", "is required")
		}
		req := runs.AnswerRequest{TenantID: id.TenantID, UserID: id.UserID, RunID: runID, Approved: *body.Approved, Answer: body.Answer, ConfirmationID: body.ConfirmationID}
		if body.SecretNames != nil {
			if req.SecretNames, err = trust.ParseSecretNames("secretNames", body.SecretNames); err != nil {
				return err
			}
		}
		if req.IdempotencyKey, req.RequestHash, err = httpapi.IdempotencyKey(r, raw); err != nil {
			return err
		}
		resp, err := svc.Answer(r.Context(), req)
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", runID), slog.Bool("approved", req.Approved),
			slog.String("action", resp.Action), slog.Int("step", resp.State.CurrentStep))
		httpapi.WriteJSON(w, http.StatusOK, resp)
		return nil
	})
}
