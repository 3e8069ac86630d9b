package provision

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
	"github.com/screenagent/backend/shared/awsconfig"
	"github.com/screenagent/backend/shared/config"
	"github.com/screenagent/backend/shared/knowledge"
	"github.com/screenagent/backend/shared/knowledge/ingest"
	"github.com/screenagent/backend/shared/knowledge/knowledgedb"
)

// Knowledge is what the knowledge commands work on: accounts (to find the tenant), its allowed
// domains, and the built-in knowledge store.
type Knowledge struct {
	Accounts  *accountsdb.Store
	Domains   *knowledgedb.Domains
	Documents *knowledgedb.Documents
}

// ConnectKnowledge is Connect for the knowledge commands, with the Knowledge table as well.
func ConnectKnowledge(ctx context.Context, endpoint, accountsTable, knowledgeTable string) (*Knowledge, error) {
	cfg, err := awsconfig.Load(ctx, endpoint, config.AWSCredentialsInEnv())
	if err != nil {
		return nil, err
	}
	db := awsconfig.DynamoDB(cfg, endpoint)
	return &Knowledge{
		Accounts:  accountsdb.New(db, accountsTable),
		Domains:   knowledgedb.NewDomains(db, accountsTable),
		Documents: knowledgedb.NewDocuments(db, knowledgeTable),
	}, nil
}

// Tenant returns the organization named org, or, given an e-mail instead, the tenant that user
// logs into by default (accounts.ChooseTenant: the oldest organization, else the personal
// tenant), since that is whose knowledge the user's requests read.
func Tenant(ctx context.Context, s *accountsdb.Store, email, org string) (accounts.Tenant, error) {
	if org != "" {
		return s.GetOrganizationByName(ctx, org)
	}
	u, err := userByEmail(ctx, s, email)
	if err != nil {
		return accounts.Tenant{}, err
	}
	ms, err := s.ListMemberships(ctx, u.ID)
	if err != nil {
		return accounts.Tenant{}, err
	}
	id, err := accounts.ChooseTenant(u.ID, ms, "")
	if err != nil {
		return accounts.Tenant{}, err
	}
	return s.GetTenant(ctx, id)
}

// ReadDocuments reads and parses files for ingestion into domain, all of them before anything
// is stored, so a bad file in a list stores nothing.
func ReadDocuments(domain knowledge.Pattern, paths []string) ([]knowledge.Document, error) {
	docs := make([]knowledge.Document, len(paths))
	for i, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if info.Size() > ingest.MaxFileBytes {
			return nil, fmt.Errorf("%s: file is larger than %d MiB", p, ingest.MaxFileBytes>>20)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		d, err := ingest.Parse(filepath.Base(p), data)
		if err != nil {
			return nil, err
		}
		d.Domain = domain.String()
		d.ID = knowledge.DocumentID(d.Domain, d.Source)
		docs[i] = d
	}
	return docs, nil
}

// Reachable reports whether knowledge stored under domain is used for some page: whether one of
// the tenant's allowed patterns overlaps it.
func Reachable(ctx context.Context, k *Knowledge, tenantID string, domain knowledge.Pattern) (bool, error) {
	allowed, err := k.Domains.ListDomains(ctx, tenantID)
	if err != nil {
		return false, err
	}
	for _, p := range allowed {
		if p.Overlaps(domain) {
			return true, nil
		}
	}
	return false, nil
}
