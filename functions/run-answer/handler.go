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

type answerer interface {
	Answer(ctx context.Context, req runs.AnswerRequest) (runs.StepResponse, error)
}

func newHandler(svc answerer) http.Handler {
	return runapi.Authed(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		req, err := runapi.DecodeAnswer(r, id)
		if err != nil {
			return err
		}
		resp, err := svc.Answer(r.Context(), req)
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("runId", req.RunID), slog.Bool("approved", req.Approved),
			slog.String("action", resp.Action), slog.Int("step", resp.State.CurrentStep), slog.String("cache", resp.Metrics.Cache))
		if resp.Metrics.Cache != "" {
			// An approved call the action cache served: said in a header, as /step does.
			w.Header().Set("X-Action-Cache", resp.Metrics.Cache)
		}
		httpapi.WriteJSON(w, http.StatusOK, resp)
		return nil
	})
}
