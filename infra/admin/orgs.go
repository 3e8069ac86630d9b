package main

import (
	"context"
	"fmt"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/shared/accounts"
)

func (c *cli) orgCreate(ctx context.Context, args []string) error {
	const use = "admin org create --name NAME"
	fs := c.flagSet()
	name := fs.String("name", "", "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := required(use, "name", *name); err != nil {
		return err
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	org, err := s.CreateOrganization(ctx, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "created organization %q (id %s)\n", org.Name, org.ID)
	return nil
}

func (c *cli) orgAddMember(ctx context.Context, args []string) error {
	const use = "admin org add-member --org NAME --email E [--role admin|member]"
	fs := c.flagSet()
	org := fs.String("org", "", "")
	email := fs.String("email", "", "")
	role := fs.String("role", accounts.RoleMember, "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := required(use, "org", *org, "email", *email); err != nil {
		return err
	}
	if *role != accounts.RoleAdmin && *role != accounts.RoleMember {
		return usagef(use, "--role must be admin or member")
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	if err := provision.AddMember(ctx, s, *org, *email, *role); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "added %s to organization %q as %s\n", *email, *org, *role)
	return nil
}

func (c *cli) tenantSetTier(ctx context.Context, args []string) error {
	const use = "admin tenant set-tier (--org NAME | --email E [--personal]) --tier free|pro|enterprise"
	fs := c.flagSet()
	email := fs.String("email", "", "")
	org := fs.String("org", "", "")
	personal := fs.Bool("personal", false, "")
	tierFlag := fs.String("tier", "", "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	switch {
	case *personal && *email == "":
		return usagef(use, "--personal needs --email")
	case *email != "" && *org != "":
		return usagef(use, "--email picks a user's personal tenant and --org an organization: give one of them")
	case *email == "" && *org == "":
		return usagef(use, "give --org NAME, or --email E for a user's personal tenant")
	}
	if err := required(use, "tier", *tierFlag); err != nil {
		return err
	}
	tier, err := accounts.ParseTier(*tierFlag)
	if err != nil {
		return usagef(use, "--%v", err)
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	var t accounts.Tenant
	if *email != "" {
		t, err = provision.SetPersonalTier(ctx, s, *email, *personal, tier)
	} else {
		t, err = provision.SetOrgTier(ctx, s, *org, tier)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "tenant %q (%s, id %s) is now on the %s tier\n", t.Name, t.Kind, t.ID, t.Tier)
	return nil
}
