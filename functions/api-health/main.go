// Command api-health serves GET /api/health.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/health"
)

func main() {
	app.Main("GET /api/health", func(_ context.Context, a *app.App) (http.Handler, error) {
		c := a.Config
		return newHandler(&health.Checker{
			DB: a.DynamoDB,
			Tables: map[string]string{
				"tasksTable":      c.TasksTable,
				"sessionsTable":   c.SessionsTable,
				"messagesTable":   c.MessagesTable,
				"rateLimitsTable": c.RateLimitsTable,
				"accountsTable":   c.AccountsTable,
				"knowledgeTable":  c.KnowledgeTable,
			},
			LLM:    health.LLM{Configured: c.LLMConfigured(), Model: c.OpenAIModel, BaseURL: c.OpenAIBaseURL},
			Search: health.Search{Configured: c.SearchConfigured()},
		}), nil
	})
}
