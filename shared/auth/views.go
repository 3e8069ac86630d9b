package auth

import "github.com/screenagent/backend/shared/accounts"

// UserView is the user object of the auth responses (§2.1, §2.2).
type UserView struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

// SessionView is the body of GET /api/v1/auth/session.
type SessionView struct {
	User       UserView `json:"user"`
	TenantID   string   `json:"tenantId"`
	TenantName string   `json:"tenantName"`
}

// LoginView is the body of POST /api/v1/auth/login.
type LoginView struct {
	AccessToken string   `json:"accessToken"`
	ExpiresAt   string   `json:"expiresAt"`
	User        UserView `json:"user"`
	TenantID    string   `json:"tenantId"`
	TenantName  string   `json:"tenantName"`
}

// jsISOTime is JavaScript's Date.toISOString format: the extension compares expiresAt with new Date().
const jsISOTime = "2006-01-02T15:04:05.000Z"

// NewLoginView renders a login.
func NewLoginView(l Login) LoginView {
	return LoginView{
		AccessToken: l.AccessToken,
		ExpiresAt:   l.ExpiresAt.UTC().Format(jsISOTime),
		User:        UserView{ID: l.User.ID, Email: l.User.Email, Name: l.User.Name},
		TenantID:    l.Tenant.ID,
		TenantName:  l.Tenant.Name,
	}
}

// NewSessionView renders the identity of a verified token.
func NewSessionView(id accounts.Identity) SessionView {
	return SessionView{
		User:       UserView{ID: id.UserID, Email: id.Email, Name: id.Name},
		TenantID:   id.TenantID,
		TenantName: id.TenantName,
	}
}
