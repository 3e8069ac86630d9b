// Command api-health serves GET /api/health.
package main

import (
	"context"
	"net/http"

	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/health"
)

func main() {
	required := []string{config.EnvTasksTable, config.EnvSessionsTable, config.EnvMessagesTable,
		config.EnvRateLimitsTable, config.EnvAccountsTable, config.EnvKnowledgeTable}
	app.Main("GET /api/health", required, func(_ context.Context, a *app.App) (http.Handler, error) {
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
