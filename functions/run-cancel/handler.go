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

type canceller interface {
	Cancel(ctx context.Context, tenantID, userID, runID string) error
}

// newHandler cancels the run; the request body is empty and not read.
func newHandler(svc canceller) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		runID, err := runapi.RunID(r)
		if err != nil {
			return err
		}
		if err := svc.Cancel(r.Context(), id.TenantID, id.UserID, runID); err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", runID))
		httpapi.WriteJSON(w, http.StatusOK, runs.CancelResponse{Success: true})
		return nil
	})
}
