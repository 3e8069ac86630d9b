package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/runs"
	"github.com/screenagent/backend/shared/runs/runapi"
)

type getter interface {
	Get(ctx context.Context, tenantID, userID, runID string) (runs.GetResponse, error)
}

func newHandler(svc getter) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		runID, err := runapi.RunID(r)
		if err != nil {
			return err
		}
		resp, err := svc.Get(r.Context(), id.TenantID, id.UserID, runID)
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", runID))
		httpapi.WriteJSON(w, http.StatusOK, resp)
		return nil
	})
}
