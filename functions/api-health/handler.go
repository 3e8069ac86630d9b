package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/health"
	"github.com/screenagent/backend/shared/httpapi"
)

type checker interface {
	Check(ctx context.Context) health.Report
}

// newHandler answers 200 while the API can serve (healthy or degraded) and 503 when it cannot,
// so load balancers and uptime checks can read the status code alone.
func newHandler(c checker) http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		report := c.Check(r.Context())
		status := http.StatusOK
		if report.Status == health.Unhealthy {
			status = http.StatusServiceUnavailable
		}
		httpapi.WriteData(w, status, report)
		return nil
	})
}
