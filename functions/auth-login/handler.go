package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/auth"
	"github.com/screenagent/backend/shared/httpapi"
)

type loginer interface {
	Login(ctx context.Context, req auth.LoginRequest) (auth.Login, error)
}

type loginBody struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	// TenantID optionally picks one of the user's organizations.
	TenantID string `json:"tenantId"`
}

func newHandler(s loginer) http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		var body loginBody
		if err := httpapi.DecodeJSON(r, &body); err != nil {
			return err
		}
		if body.Email == "" {
			return httpapi.Validation("email", "is required")
		}
		if body.Password == "" {
			return httpapi.Validation("password", "is required")
		}
		login, err := s.Login(r.Context(), auth.LoginRequest{
			Email: body.Email, Password: body.Password, TenantID: body.TenantID, ClientIP: httpapi.ClientIP(r),
		})
		if err != nil {
			return auth.HTTPError(err)
		}
		httpapi.WriteData(w, http.StatusOK, auth.NewLoginView(login))
		return nil
	})
}
