package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
	"github.com/screenagent/backend/shared/realtime"
)

type issuer interface {
	IssueTicket(ctx context.Context, id accounts.Identity) (realtime.Ticket, error)
}

// newHandler issues a ticket to the authenticated caller: browsers cannot set headers on a
// WebSocket, and a bearer token in a URL would end up in access logs, so the token buys a
// short-lived, single-use ticket instead.
func newHandler(hub issuer) http.Handler {
	return auth.Handler(func(w http.ResponseWriter, r *http.Request, id accounts.Identity) error {
		t, err := hub.IssueTicket(r.Context(), id)
		if err != nil {
			return err
		}
		httpapi.WriteData(w, http.StatusOK, t)
		return nil
	})
}
