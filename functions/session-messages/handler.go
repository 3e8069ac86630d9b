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

// newHandler answers with a session's messages, oldest first (§4.8.1): only the owner's, never
// an archived session's, and never a page or its snapshot.
func newHandler(store history.MessageReader) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		sessionID, err := validation.ParseID("sessionId", r.PathValue("sessionId"))
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("sessionId", sessionID))
		q := history.NewQuery(r)
		limit, err := q.Int("limit", history.DefaultMessageLimit, 1, history.MaxMessageLimit)
		if err != nil {
			return err
		}
		since, err := q.Time("since")
		if err != nil {
			return err
		}
		list, err := history.ListMessages(r.Context(), store, id, sessionID, limit, since)
		if err != nil {
			return history.HTTPError(err)
		}
		httpapi.WriteData(w, http.StatusOK, list)
		return nil
	})
}
