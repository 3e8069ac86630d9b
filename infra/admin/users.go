package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/shared/accounts"
)

// maxPasswordInput bounds what --password-stdin reads; the policy's limit is far below it, so
// a longer input is refused by the policy rather than silently cut.
const maxPasswordInput = 4096

func (c *cli) userCreate(ctx context.Context, args []string) error {
	const use = "admin user create --email E --name N [--org NAME] [--password-stdin]"
	fs := c.flagSet()
	email := fs.String("email", "", "")
	name := fs.String("name", "", "")
	org := fs.String("org", "", "")
	fromStdin := fs.Bool("password-stdin", false, "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := required(use, "email", *email, "name", *name); err != nil {
		return err
	}
	if _, err := accounts.NormalizeEmail(*email); err != nil {
		return usagef(use, "--%v", err)
	}
	password, generated, err := c.password(*fromStdin)
	if err != nil {
		return err
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	u, err := provision.CreateUser(ctx, s, provision.NewUser{Email: *email, Name: *name, Password: password, Org: *org})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "created user %s (id %s)\n", u.Email, u.ID)
	if *org != "" {
		fmt.Fprintf(c.stdout, "added to organization %q as %s\n", *org, accounts.RoleMember)
	}
	if generated {
		fmt.Fprintf(c.stdout, "password: %s\n(shown only this once)\n", password)
	}
	return nil
}

// password returns the new user's password: the first line of stdin, or a generated one.
func (c *cli) password(fromStdin bool) (password string, generated bool, err error) {
	if !fromStdin {
		p, err := provision.GeneratePassword()
		return p, true, err
	}
	in, err := io.ReadAll(io.LimitReader(c.stdin, maxPasswordInput))
	if err != nil {
		return "", false, fmt.Errorf("read password from stdin: %w", err)
	}
	// Only the line end that `echo` or a here-string adds: spaces may be part of a passphrase.
	in = bytes.TrimSuffix(in, []byte("\n"))
	in = bytes.TrimSuffix(in, []byte("\r"))
	if err := accounts.ValidatePassword(string(in)); err != nil {
		return "", false, err
	}
	return string(in), false, nil
}

func (c *cli) userSetDisabled(ctx context.Context, args []string, disabled bool) error {
	use := "admin user enable --email E"
	if disabled {
		use = "admin user disable --email E"
	}
	fs := c.flagSet()
	email := fs.String("email", "", "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := required(use, "email", *email); err != nil {
		return err
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	u, err := provision.SetDisabled(ctx, s, *email, disabled)
	if err != nil {
		return err
	}
	if disabled {
		fmt.Fprintf(c.stdout, "disabled user %s and revoked its tokens\n", u.Email)
	} else {
		fmt.Fprintf(c.stdout, "enabled user %s\n", u.Email)
	}
	return nil
}

func (c *cli) userList(ctx context.Context, args []string) error {
	const use = "admin user list"
	if err := parse(c.flagSet(), args, use); err != nil {
		return err
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	users, err := s.ListUsers(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "EMAIL\tNAME\tDISABLED\tID")
	for _, u := range users {
		fmt.Fprintf(w, "%s\t%s\t%t\t%s\n", u.Email, u.Name, u.Disabled, u.ID)
	}
	return w.Flush()
}
