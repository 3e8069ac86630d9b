package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/knowledge"
)

// tenantFlags are --email and --org, of which a knowledge command takes exactly one.
type tenantFlags struct{ email, org *string }

func addTenantFlags(fs *flag.FlagSet) tenantFlags {
	return tenantFlags{email: fs.String("email", "", ""), org: fs.String("org", "", "")}
}

func (tf tenantFlags) check(use string) error {
	if (*tf.email == "") == (*tf.org == "") {
		return usagef(use, "give exactly one of --email and --org")
	}
	return nil
}

// tenant connects to the tables and finds the tenant the flags name.
func (c *cli) tenant(ctx context.Context, tf tenantFlags) (*provision.Knowledge, accounts.Tenant, error) {
	if c.table.value == "" || c.knowledgeTable.value == "" {
		return nil, accounts.Tenant{}, usagef(usage, "--table and --knowledge-table must not be empty")
	}
	if err := c.resolve(); err != nil {
		return nil, accounts.Tenant{}, err
	}
	k, err := provision.ConnectKnowledge(ctx, c.endpoint.value, c.table.value, c.knowledgeTable.value)
	if err != nil {
		return nil, accounts.Tenant{}, err
	}
	t, err := provision.Tenant(ctx, k.Accounts, *tf.email, *tf.org)
	if err != nil {
		return nil, accounts.Tenant{}, err
	}
	return k, t, nil
}

func describe(t accounts.Tenant) string {
	return fmt.Sprintf("tenant %q (%s, id %s)", t.Name, t.Kind, t.ID)
}

// parsePattern reads a --pattern or --domain value.
func parsePattern(use, flagName, value string) (knowledge.Pattern, error) {
	if err := required(use, flagName, value); err != nil {
		return knowledge.Pattern{}, err
	}
	p, err := knowledge.ParsePattern(value)
	var ve *knowledge.ValidationError
	if errors.As(err, &ve) {
		return knowledge.Pattern{}, usagef(use, "--%s %s", flagName, ve.Reason)
	}
	return p, err
}

// domainTarget reads the --pattern and tenant flags of domain add and remove.
func (c *cli) domainTarget(ctx context.Context, args []string, use string) (*provision.Knowledge, accounts.Tenant, knowledge.Pattern, error) {
	fs := c.flagSet()
	tf := addTenantFlags(fs)
	pattern := fs.String("pattern", "", "")
	if err := parse(fs, args, use); err != nil {
		return nil, accounts.Tenant{}, knowledge.Pattern{}, err
	}
	if err := tf.check(use); err != nil {
		return nil, accounts.Tenant{}, knowledge.Pattern{}, err
	}
	p, err := parsePattern(use, "pattern", *pattern)
	if err != nil {
		return nil, accounts.Tenant{}, knowledge.Pattern{}, err
	}
	k, t, err := c.tenant(ctx, tf)
	return k, t, p, err
}

func (c *cli) domainAdd(ctx context.Context, args []string) error {
	k, t, p, err := c.domainTarget(ctx, args, "admin domain add (--email E | --org NAME) --pattern P   (quote wildcards: --pattern '*.example.com')")
	if err != nil {
		return err
	}
	if err := k.Domains.AddDomain(ctx, t.ID, p); err != nil {
		if errors.Is(err, knowledge.ErrDomainExists) {
			return fmt.Errorf("%s is already allowed for %s", p, describe(t))
		}
		return err
	}
	fmt.Fprintf(c.stdout, "allowed %s for %s\n", p, describe(t))
	return nil
}

func (c *cli) domainRemove(ctx context.Context, args []string) error {
	k, t, p, err := c.domainTarget(ctx, args, "admin domain remove (--email E | --org NAME) --pattern P")
	if err != nil {
		return err
	}
	if err := k.Domains.RemoveDomain(ctx, t.ID, p); err != nil {
		if errors.Is(err, knowledge.ErrNotFound) {
			return fmt.Errorf("%s is not an allowed domain of %s", p, describe(t))
		}
		return err
	}
	fmt.Fprintf(c.stdout, "removed %s from %s (its knowledge is kept)\n", p, describe(t))
	return nil
}

func (c *cli) domainList(ctx context.Context, args []string) error {
	const use = "admin domain list (--email E | --org NAME)"
	fs := c.flagSet()
	tf := addTenantFlags(fs)
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := tf.check(use); err != nil {
		return err
	}
	k, t, err := c.tenant(ctx, tf)
	if err != nil {
		return err
	}
	patterns, err := k.Domains.ListDomains(ctx, t.ID)
	if err != nil {
		return err
	}
	if len(patterns) == 0 {
		fmt.Fprintf(c.stdout, "%s has no allowed domains\n", describe(t))
		return nil
	}
	for _, p := range patterns {
		fmt.Fprintln(c.stdout, p)
	}
	return nil
}

func (c *cli) knowledgeIngest(ctx context.Context, args []string) error {
	const use = "admin knowledge ingest (--email E | --org NAME) --domain D FILE...   (.md, .txt, .html)"
	fs := c.flagSet()
	tf := addTenantFlags(fs)
	domain := fs.String("domain", "", "")
	if err := fs.Parse(args); err != nil {
		return flagError(err, use)
	}
	if err := tf.check(use); err != nil {
		return err
	}
	d, err := parsePattern(use, "domain", *domain)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef(use, "name at least one FILE")
	}
	docs, err := provision.ReadDocuments(d, fs.Args())
	if err != nil {
		return err
	}
	k, t, err := c.tenant(ctx, tf)
	if err != nil {
		return err
	}
	for _, doc := range docs {
		replaced, err := k.Documents.PutDocument(ctx, t.ID, doc)
		if err != nil {
			return err
		}
		how := "new"
		if replaced {
			how = "replaced the previous version"
		}
		fmt.Fprintf(c.stdout, "ingested %s into %s as %q (%s, %d chunks, %s)\n", doc.Source, d, doc.Title, doc.ID, len(doc.Chunks), how)
	}
	reachable, err := provision.Reachable(ctx, k, t.ID, d)
	if err != nil {
		return err
	}
	if !reachable {
		fmt.Fprintf(c.stdout, "note: no allowed domain of %s covers %s yet, so this knowledge is not used; add one with: admin domain add --pattern ...\n", describe(t), d)
	}
	return nil
}

func (c *cli) knowledgeList(ctx context.Context, args []string) error {
	const use = "admin knowledge list (--email E | --org NAME) [--domain D]"
	fs := c.flagSet()
	tf := addTenantFlags(fs)
	domain := fs.String("domain", "", "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := tf.check(use); err != nil {
		return err
	}
	var filter string
	if *domain != "" {
		d, err := parsePattern(use, "domain", *domain)
		if err != nil {
			return err
		}
		filter = d.String()
	}
	k, t, err := c.tenant(ctx, tf)
	if err != nil {
		return err
	}
	docs, err := k.Documents.ListDocuments(ctx, t.ID, filter)
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		fmt.Fprintf(c.stdout, "%s has no documents\n", describe(t))
		return nil
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "DOMAIN\tFILE\tTITLE\tCHUNKS\tINGESTED\tID")
	for _, d := range docs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", d.Domain, d.Source, d.Title, d.ChunkCount, d.IngestedAt.Format(time.RFC3339), d.ID)
	}
	return w.Flush()
}

func (c *cli) knowledgeDelete(ctx context.Context, args []string) error {
	const use = "admin knowledge delete (--email E | --org NAME) --domain D (--file NAME | --id DOC)"
	fs := c.flagSet()
	tf := addTenantFlags(fs)
	domain := fs.String("domain", "", "")
	file := fs.String("file", "", "")
	id := fs.String("id", "", "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := tf.check(use); err != nil {
		return err
	}
	d, err := parsePattern(use, "domain", *domain)
	if err != nil {
		return err
	}
	if (*file == "") == (*id == "") {
		return usagef(use, "give exactly one of --file and --id")
	}
	docID := *id
	if *file != "" {
		docID = knowledge.DocumentID(d.String(), filepath.Base(*file))
	}
	k, t, err := c.tenant(ctx, tf)
	if err != nil {
		return err
	}
	if err := k.Documents.DeleteDocument(ctx, t.ID, d.String(), docID); err != nil {
		if errors.Is(err, knowledge.ErrNotFound) {
			return fmt.Errorf("%s has no document %s under %s", describe(t), docID, d)
		}
		return err
	}
	fmt.Fprintf(c.stdout, "deleted %s from %s of %s\n", docID, d, describe(t))
	return nil
}
