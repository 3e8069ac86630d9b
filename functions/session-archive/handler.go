package main

import (
	"log/slog"
	"net/http"

	"github.com/screenagent/backend/shared/validation"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/history"
	"github.com/screenagent/backend/shared/httpapi"
)

type archiveBody struct {
	SessionID *string `json:"sessionId"`
}

// newHandler archives a session of the user (§4.8.3): the extension stops seeing it, the
// listing still shows it with includeArchived=true.
func newHandler(store history.Archiver) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		var body archiveBody
		if err := httpapi.DecodeJSON(r, &body); err != nil {
			return err
		}
		if body.SessionID == nil || *body.SessionID == "" {
			return httpapi.Validation("sessionId", "is required")
		}
		sessionID, err := validation.ParseID("sessionId", *body.SessionID)
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("sessionId", sessionID))
		res, err := history.ArchiveSession(r.Context(), store, id, sessionID)
		if err != nil {
			return history.HTTPError(err)
		}
		httpapi.WriteData(w, http.StatusOK, res)
		return nil
	})
}
