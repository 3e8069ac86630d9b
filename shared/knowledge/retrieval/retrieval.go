// Package retrieval builds the knowledge service a function uses from its configuration: the
// allowed domains from the Accounts table, and org knowledge from the external extraction
// service when KNOWLEDGE_SERVICE_URL is set, else from the built-in store in the Knowledge table.
//
//	svc, err := retrieval.New(a.Config, a.DynamoDB)
//	res, err := svc.Resolve(ctx, identity.TenantID, body.URL, body.Query)
package retrieval

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/extraction"
	"github.com/screenagent/backend/shared/knowledge/knowledgedb"
)

// New returns the knowledge service for cfg. It needs ACCOUNTS_TABLE, and KNOWLEDGE_TABLE unless
// KNOWLEDGE_SERVICE_URL is set.
func New(cfg config.Config, db *dynamodb.Client) (*knowledge.Service, error) {
	if cfg.AccountsTable == "" {
		return nil, fmt.Errorf("configuration: %s is required for the knowledge service", config.EnvAccountsTable)
	}
	var source knowledge.Source
	if cfg.KnowledgeServiceURL != "" {
		var err error
		if source, err = extraction.NewClient(cfg.KnowledgeServiceURL, extraction.DefaultTimeout); err != nil {
			return nil, fmt.Errorf("configuration: %s: %w", config.EnvKnowledgeServiceURL, err)
		}
	} else {
		if cfg.KnowledgeTable == "" {
			return nil, fmt.Errorf("configuration: %s is required when %s is empty", config.EnvKnowledgeTable, config.EnvKnowledgeServiceURL)
		}
		source = knowledge.BuiltIn{Store: knowledgedb.NewDocuments(db, cfg.KnowledgeTable)}
	}
	return knowledge.NewService(knowledgedb.NewDomains(db, cfg.AccountsTable), source, cfg.KnowledgeCacheTTL), nil
}
