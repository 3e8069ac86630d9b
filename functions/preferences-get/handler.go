package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
)

type preferencesReader interface {
	GetPreferences(ctx context.Context, tenantID, userID string) (accounts.Preferences, bool, error)
}

// newHandler answers with the user's saved preferences in this tenant, or the defaults.
func newHandler(store preferencesReader) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		prefs, found, err := store.GetPreferences(r.Context(), id.TenantID, id.UserID)
		if err != nil {
			return err
		}
		if !found {
			prefs = accounts.DefaultPreferences()
		}
		httpapi.WriteData(w, http.StatusOK, prefs)
		return nil
	})
}
