package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/chat"
	"github.com/screenagent/backend/shared/history"
	"github.com/screenagent/backend/shared/httpapi"
)

// newHandler answers with the user's most recently updated unarchived session of a status
// (active by default), or 404 SESSION_NOT_FOUND when there is none (§4.8.4).
func newHandler(store history.LatestFinder) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		status, err := history.NewQuery(r).Enum("status", history.SessionStatuses()...)
		if err != nil {
			return err
		}
		view, err := history.LatestSession(r.Context(), store, id, chat.Status(status))
		if err != nil {
			return history.HTTPError(err)
		}
		httpapi.WriteData(w, http.StatusOK, view)
		return nil
	})
}
