package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/screenagent/backend/shared/validation"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/history"
	"github.com/screenagent/backend/shared/httpapi"
)

// newHandler answers with the export of one of the user's tasks as a download named
// task-<taskId>.json.
func newHandler(store history.TaskRecords, msgs history.MessageReader, now func() time.Time) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		taskID, err := validation.ParseID("taskId", r.PathValue("taskId"))
		if err != nil {
			return err
		}
		httpapi.AddLogAttrs(r.Context(), slog.String("taskId", taskID))
		export, err := history.ExportTask(r.Context(), store, msgs, id, taskID, now())
		if err != nil {
			return history.HTTPError(err)
		}
		w.Header().Set("Content-Disposition", `attachment; filename="task-`+taskID+`.json"`)
		httpapi.WriteData(w, http.StatusOK, export)
		return nil
	})
}
