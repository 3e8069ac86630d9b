package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/history"
	"github.com/screenagent/backend/shared/httpapi"
)

// newHandler lists the user's sessions (§4.8.2): active ones by default, most recently updated first.
func newHandler(store history.SessionLister) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		q, err := parse(history.NewQuery(r))
		if err != nil {
			return err
		}
		list, err := history.ListSessions(r.Context(), store, id, q)
		if err != nil {
			return history.HTTPError(err)
		}
		httpapi.WriteData(w, http.StatusOK, list)
		return nil
	})
}

func parse(q history.Query) (history.ListQuery, error) {
	var out history.ListQuery
	var err error
	if out.Status, err = q.Enum("status", history.ListStatuses...); err != nil {
		return out, err
	}
	if out.IncludeArchived, err = q.Bool("includeArchived", false); err != nil {
		return out, err
	}
	if out.Limit, err = q.Int("limit", history.DefaultSessionLimit, 1, history.MaxSessionLimit); err != nil {
		return out, err
	}
	if out.Offset, err = q.Int("offset", 0, 0, history.MaxOffset); err != nil {
		return out, err
	}
	return out, nil
}
