package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
)

type preferencesUpdater interface {
	UpdatePreferences(ctx context.Context, tenantID, userID string, patch accounts.PreferencesPatch) (accounts.Preferences, error)
}

// newHandler merges the body into the user's saved preferences — fields left out keep their
// value, a field sent as null goes back to its default — and answers with the whole document.
func newHandler(store preferencesUpdater) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		body, err := httpapi.ReadJSONBody(r)
		if err != nil {
			return err
		}
		patch, err := accounts.DecodePreferencesPatch(body)
		if err != nil {
			return err
		}
		prefs, err := store.UpdatePreferences(r.Context(), id.TenantID, id.UserID, patch)
		if err != nil {
			return err
		}
		httpapi.WriteData(w, http.StatusOK, prefs)
		return nil
	})
}
