package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
)

type logouter interface {
	Logout(ctx context.Context, tokenHash string) error
}

// newHandler revokes the request's own token; the body, if any, is ignored (§2.3).
func newHandler(s logouter) http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		hash := auth.TokenHashFrom(r.Context())
		if hash == "" {
			return auth.HTTPError(auth.ErrUnauthorized)
		}
		if err := s.Logout(r.Context(), hash); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}
