// Package retrieval builds the knowledge service a function uses from its configuration: the
// allowed domains from the Accounts table, and org knowledge from the external extraction
// service when KNOWLEDGE_SERVICE_URL is set, else from the built-in store in the Knowledge table.
//
//	svc, err := retrieval.New(a.Config, a.DynamoDB)
//	res, err := svc.Resolve(ctx, identity.TenantID, body.URL, body.Query)
package retrieval

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/extraction"
	"github.com/screenagent/backend/shared/knowledge/knowledgedb"
)

// EnvCacheSeconds sets how long a process keeps a lookup's result (0 turns the cache off).
const EnvCacheSeconds = "KNOWLEDGE_CACHE_SECONDS"

// DefaultCacheTTL covers the steps of one task on one page.
const DefaultCacheTTL = 30 * time.Second

// New returns the knowledge service for cfg. It needs ACCOUNTS_TABLE, and KNOWLEDGE_TABLE unless
// KNOWLEDGE_SERVICE_URL is set.
func New(cfg config.Config, db *dynamodb.Client) (*knowledge.Service, error) {
	ttl, err := cacheTTL(os.Getenv(EnvCacheSeconds))
	if err != nil {
		return nil, err
	}
	if cfg.AccountsTable == "" {
		return nil, fmt.Errorf("configuration: %s is required for the knowledge service", config.EnvAccountsTable)
	}
	var source knowledge.Source
	if cfg.KnowledgeServiceURL != "" {
		if source, err = extraction.NewClient(cfg.KnowledgeServiceURL, extraction.DefaultTimeout); err != nil {
			return nil, fmt.Errorf("configuration: %s: %w", config.EnvKnowledgeServiceURL, err)
		}
	} else {
		if cfg.KnowledgeTable == "" {
			return nil, fmt.Errorf("configuration: %s is required when %s is empty", config.EnvKnowledgeTable, config.EnvKnowledgeServiceURL)
		}
		source = knowledge.BuiltIn{Store: knowledgedb.NewDocuments(db, cfg.KnowledgeTable)}
	}
	return knowledge.NewService(knowledgedb.NewDomains(db, cfg.AccountsTable), source, ttl), nil
}

func cacheTTL(v string) (time.Duration, error) {
	if v == "" {
		return DefaultCacheTTL, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("configuration: %s must be a whole number of seconds, 0 or more, got %q", EnvCacheSeconds, v)
	}
	return time.Duration(n) * time.Second, nil
}
