package main

import (
	"net/http"
	"time"

	"github.com/screenagent/backend/shared/httpapi"
)

// response is the exact shape of PROXY_SERVER_API.md, whose thin client depends on it.
type response struct {
	Status    string `json:"status"`
	Model     string `json:"model"`
	BaseURL   string `json:"baseUrl"`
	Timestamp string `json:"timestamp"`
}

// jsISOTime is JavaScript's Date.toISOString format, which the run API's clients parse.
const jsISOTime = "2006-01-02T15:04:05.000Z"

func newHandler(model, baseURL string, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteJSON(w, http.StatusOK, response{
			Status:    "ok",
			Model:     model,
			BaseURL:   baseURL,
			Timestamp: now().UTC().Format(jsISOTime),
		})
	})
}
