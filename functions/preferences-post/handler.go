package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
)

type preferencesWriter interface {
	PutPreferences(ctx context.Context, tenantID, userID string, p accounts.Preferences) error
}

// newHandler validates and saves the whole preferences object (missing fields take their
// defaults) and answers with what was saved.
func newHandler(store preferencesWriter) http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		id, err := auth.Require(r.Context())
		if err != nil {
			return err
		}
		body, err := httpapi.ReadJSONBody(r)
		if err != nil {
			return err
		}
		prefs, err := accounts.DecodePreferences(body)
		if err != nil {
			return err
		}
		if err := store.PutPreferences(r.Context(), id.TenantID, id.UserID, prefs); err != nil {
			return err
		}
		httpapi.WriteData(w, http.StatusOK, prefs)
		return nil
	})
}
