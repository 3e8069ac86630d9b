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

type starter interface {
	Start(ctx context.Context, tenantID, userID, task string, mode runs.Mode, timezone, locale string, secrets []trust.NamedSecret, capabilities []string) (runs.StartResponse, error)
}

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

func newHandler(svc starter) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		raw, err := runapi.ReadBody(r)
		if err != nil {
			return err
		}
		var body startBody
		if err := httpapi.Unmarshal(raw, &body); err != nil {
			return err
		}
		var task, mode string
		if body.Task != nil {
			task = *body.Task
		}
		if body.Mode != nil {
			mode = *body.Mode
		}
		secrets, err := trust.ParseSecretNames("secretNames", body.SecretNames)
		if err != nil {
			return err
		}
		resp, err := svc.Start(r.Context(), id.TenantID, id.UserID, task, runs.Mode(mode), body.Timezone, body.Locale, secrets, body.Capabilities)
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", resp.RunID))
		httpapi.WriteJSON(w, http.StatusOK, resp)
		return nil
	})
}
