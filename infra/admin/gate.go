package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/trust/gate"
)

// listFlag is a flag that may be given many times, each value appended.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ", ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// tenantSetGate replaces a tenant's additions to the run API's security gate: its risky words and
// the URL patterns of its own checkout or payment pages. Given neither, it clears them.
func (c *cli) tenantSetGate(ctx context.Context, args []string) error {
	const use = "admin tenant set-gate (--email E | --org NAME) [--word W]... [--url-pattern P]...   (none: clear)"
	fs := c.flagSet()
	tf := addTenantFlags(fs)
	var words, patterns listFlag
	fs.Var(&words, "word", "")
	fs.Var(&patterns, "url-pattern", "")
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := tf.check(use); err != nil {
		return err
	}
	settings := accounts.GateSettings{Words: trimmed(words), URLPatterns: trimmed(patterns)}
	if err := (gate.Custom{Words: settings.Words, URLPatterns: settings.URLPatterns}).Validate(); err != nil {
		return usagef(use, "%v", err)
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	t, err := provision.Tenant(ctx, s, *tf.email, *tf.org)
	if err != nil {
		return err
	}
	if err := s.SetGateSettings(ctx, t.ID, settings); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s now holds %d risky words and %d URL patterns of its own\n", describe(t), len(settings.Words), len(settings.URLPatterns))
	return nil
}

// tenantShowGate prints a tenant's additions to the security gate, one a line.
func (c *cli) tenantShowGate(ctx context.Context, args []string) error {
	const use = "admin tenant show-gate (--email E | --org NAME)"
	fs := c.flagSet()
	tf := addTenantFlags(fs)
	if err := parse(fs, args, use); err != nil {
		return err
	}
	if err := tf.check(use); err != nil {
		return err
	}
	s, err := c.store(ctx)
	if err != nil {
		return err
	}
	t, err := provision.Tenant(ctx, s, *tf.email, *tf.org)
	if err != nil {
		return err
	}
	g, err := s.GateSettings(ctx, t.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s\n", describe(t))
	for _, w := range g.Words {
		fmt.Fprintf(c.stdout, "word\t%s\n", w)
	}
	for _, p := range g.URLPatterns {
		fmt.Fprintf(c.stdout, "url-pattern\t%s\n", p)
	}
	return nil
}

func trimmed(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, strings.TrimSpace(v))
	}
	return out
}
