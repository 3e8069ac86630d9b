// Command agent-interact serves POST /api/agent/interact, the action loop.
package main

import (
	"context"
	"net/http"
	"os"

	"github.com/screenagent/backend/shared/actioncache"
	"github.com/screenagent/backend/shared/actioncache/cachedb"
	"github.com/screenagent/backend/shared/agent"
	"github.com/screenagent/backend/shared/agent/agentdb"
	"github.com/screenagent/backend/shared/app"
	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/knowledge/retrieval"
	"github.com/screenagent/backend/shared/llm/provider"
	"github.com/screenagent/backend/shared/metrics"
	"github.com/screenagent/backend/shared/ratelimit"
	"github.com/screenagent/backend/shared/realtimeapp"
	"github.com/screenagent/backend/shared/search"
	"github.com/screenagent/backend/shared/search/searchdb"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

func main() {
	app.Main("POST /api/agent/interact", func(ctx context.Context, a *app.App) (http.Handler, error) {
		client, info, err := provider.Load(ctx, a.Config, a.Logger)
		if err != nil {
			return nil, err
		}
		know, err := retrieval.New(a.Config, a.DynamoDB)
		if err != nil {
			return nil, err
		}
		policy, err := a.Retention()
		if err != nil {
			return nil, err
		}
		taskStore := tasksdb.New(a.DynamoDB, a.Config.TasksTable, policy.Tasks)
		chatStore := chatdb.New(a.DynamoDB, a.Config.SessionsTable, a.Config.MessagesTable, policy.Chat)
		searcher, err := search.Setup(ctx, a.Config, searchdb.New(a.DynamoDB, a.Config.TasksTable), a.Logger)
		if err != nil {
			return nil, err
		}
		events, err := realtimeapp.Publisher(a)
		if err != nil {
			return nil, err
		}
		engine := &agent.Engine{
			Tasks:     taskStore,
			Chat:      chatStore,
			Commit:    &agentdb.Writer{Tasks: taskStore, Chat: chatStore, DB: a.DynamoDB, Logger: a.Logger},
			Knowledge: know,
			Search:    searcher,
			Gate:      a.Accounts(),
			LLM:       client,
			Cache:     &actioncache.Cache{Store: cachedb.New(a.DynamoDB, a.Config.TasksTable)},
			Model:     info.Model,
			Events:    events,
			Logger:    a.Logger,
		}
		return a.Protect(ratelimit.ClassInteract, newHandler(engine, a.Accounts(), metrics.New(os.Stdout, "ScreenAgent")))
	})
}
