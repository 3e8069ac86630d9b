package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
)

// newHandler answers with the identity the auth middleware verified.
func newHandler() http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		httpapi.WriteData(w, http.StatusOK, auth.NewSessionView(id))
		return nil
	})
}
