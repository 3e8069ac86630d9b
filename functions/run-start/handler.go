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

type starter interface {
	Start(ctx context.Context, req runs.StartRequest) (runs.StartResponse, error)
}

func newHandler(svc starter) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		req, err := runapi.DecodeStart(r, id)
		if err != nil {
			return err
		}
		resp, err := svc.Start(r.Context(), req)
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", resp.RunID))
		httpapi.WriteJSON(w, http.StatusOK, resp)
		return nil
	})
}
