package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
)

// newHandler answers with the identity the auth middleware verified.
func newHandler() http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, err := auth.Require(r.Context())
		if err != nil {
			return err
		}
		httpapi.WriteData(w, http.StatusOK, auth.NewSessionView(id))
		return nil
	})
}
