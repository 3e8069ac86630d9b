// Package debugmode decides whether a response may carry debug data: the request asks with
// debug=true and the user has debugMode on in their preferences, so an ordinary user's tools
// never see how the server works inside.
package debugmode

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/httpapi"
)

// PreferencesReader reads a user's saved preferences.
type PreferencesReader interface {
	GetPreferences(ctx context.Context, tenantID, userID string) (accounts.Preferences, bool, error)
}

// Enabled reads the debug query parameter (true or false; anything else is a 400) and, only
// when it asks for debug mode, the user's preferences.
func Enabled(r *http.Request, prefs PreferencesReader, id accounts.Identity) (bool, error) {
	switch r.URL.Query().Get("debug") {
	case "", "false":
		return false, nil
	case "true":
	default:
		return false, httpapi.Validation("debug", "must be true or false")
	}
	p, _, err := prefs.GetPreferences(r.Context(), id.TenantID, id.UserID)
	if err != nil {
		return false, err
	}
	return p.DebugMode, nil
}
