package main

import (
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/history"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/tasks"
)

// newHandler answers with the debug entries of the user's tasks, newest first, for the debug UI
// (§9): filtered by task, log type and time.
func newHandler(store history.DebugLister) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		q, err := parse(history.NewQuery(r))
		if err != nil {
			return err
		}
		logs, err := history.ListDebug(r.Context(), store, id, q)
		if err != nil {
			return history.HTTPError(err)
		}
		httpapi.WriteData(w, http.StatusOK, logs)
		return nil
	})
}

func parse(q history.Query) (history.DebugQuery, error) {
	var out history.DebugQuery
	var err error
	if out.TaskID, err = q.ID("taskId"); err != nil {
		return out, err
	}
	if out.LogType, err = q.Enum("logType", tasks.LogTypes...); err != nil {
		return out, err
	}
	if out.Limit, err = q.Int("limit", history.DefaultDebugLimit, 1, history.MaxDebugLimit); err != nil {
		return out, err
	}
	if out.Since, err = q.Time("since"); err != nil {
		return out, err
	}
	return out, nil
}
