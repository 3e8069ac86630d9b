// Command admin manages accounts, which the API cannot create (signups are invite-only):
//
//	go run ./infra/admin user create --email ana@example.com --name Ana [--org Acme] [--password-stdin]
//	go run ./infra/admin user disable|enable --email ana@example.com
//	go run ./infra/admin user list
//	go run ./infra/admin org create --name Acme
//	go run ./infra/admin org add-member --org Acme --email ana@example.com [--role admin|member]
//	go run ./infra/admin tenant set-tier (--org Acme | --email ana@example.com [--personal]) --tier pro
//	go run ./infra/admin tenant set-gate (--email ana@example.com | --org Acme) [--word W]... [--url-pattern P]...
//	go run ./infra/admin tenant show-gate (--email ana@example.com | --org Acme)
//	go run ./infra/admin domain add|remove (--email ana@example.com | --org Acme) --pattern '*.acme.com'
//	go run ./infra/admin domain list (--email ana@example.com | --org Acme)
//	go run ./infra/admin knowledge ingest (--email ana@example.com | --org Acme) --domain app.acme.com FILE...
//	go run ./infra/admin knowledge list (--email ana@example.com | --org Acme) [--domain app.acme.com]
//	go run ./infra/admin knowledge delete (--email ana@example.com | --org Acme) --domain app.acme.com (--file NAME | --id DOC)
//
// It talks to the DynamoDB of the stack `make run` runs in this checkout by default (found through
// .local/stack.json; with none or several running it says so). For AWS, pass an empty endpoint and the
// deployed table's name (--endpoint "" --table <name>, or DYNAMODB_ENDPOINT= ACCOUNTS_TABLE=<name>;
// the knowledge commands also --knowledge-table <name> or KNOWLEDGE_TABLE=<name>); credentials
// come from the normal AWS chain.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/screenagent/backend/infra/admin/provision"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

// The local stack's tables, named by logical ID.
const (
	defaultTable          = "AccountsTable"
	defaultKnowledgeTable = "KnowledgeTable"
)

const usage = `admin [--endpoint URL] [--table NAME] COMMAND
  user create --email E --name N [--org NAME] [--password-stdin]
  user disable --email E
  user enable --email E
  user list
  org create --name NAME
  org add-member --org NAME --email E [--role admin|member]
  tenant set-tier (--org NAME | --email E [--personal]) --tier free|pro|enterprise
  tenant set-gate (--email E | --org NAME) [--word W]... [--url-pattern P]...
  tenant show-gate (--email E | --org NAME)
  domain add (--email E | --org NAME) --pattern P
  domain remove (--email E | --org NAME) --pattern P
  domain list (--email E | --org NAME)
  knowledge ingest (--email E | --org NAME) --domain D FILE...
  knowledge list (--email E | --org NAME) [--domain D]
  knowledge delete (--email E | --org NAME) --domain D (--file NAME | --id DOC)
--endpoint (env DYNAMODB_ENDPOINT; default: the DynamoDB of the make run stack of this checkout,
found in .local/stack.json; empty for AWS),
--table (env ACCOUNTS_TABLE, default ` + defaultTable + `) and --knowledge-table
(env KNOWLEDGE_TABLE, default ` + defaultKnowledgeTable + `) may also follow the command.`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

// usageError is a command line that can't be run as given: exit status 2 and the usage.
type usageError struct {
	msg   string
	usage string
}

func (e *usageError) Error() string { return e.msg }

func usagef(use, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), usage: use}
}

// errHelp asks for the usage on stdout and exit status 0.
var errHelp = errors.New("help requested")

// cli is one run of the command: its streams and the tables it works on.
type cli struct {
	stdin                           io.Reader
	stdout, stderr                  io.Writer
	endpoint, table, knowledgeTable setting
	// resolved is set once the endpoint and tables are settled (see resolve).
	resolved bool
}

// newCLI returns a cli on the tables the environment names, else the local stack's.
func newCLI(stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) *cli {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr,
		table: setting{value: defaultTable}, knowledgeTable: setting{value: defaultKnowledgeTable}}
	// Set but empty is meaningful for the endpoint: AWS itself.
	if v, ok := lookupEnv("DYNAMODB_ENDPOINT"); ok {
		c.endpoint.Set(v)
	}
	if v, ok := lookupEnv("ACCOUNTS_TABLE"); ok && v != "" {
		c.table.Set(v)
	}
	if v, ok := lookupEnv("KNOWLEDGE_TABLE"); ok && v != "" {
		c.knowledgeTable.Set(v)
	}
	return c
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) int {
	c := newCLI(stdin, stdout, stderr, lookupEnv)
	err := c.dispatch(ctx, args)
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		fmt.Fprintln(stdout, "usage:", usage)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "admin: %s\nusage: %s\n", ue.msg, ue.usage)
		return 2
	default:
		fmt.Fprintf(stderr, "admin: %v\n", c.explain(err))
		return 1
	}
}

func (c *cli) dispatch(ctx context.Context, args []string) error {
	fs := c.flagSet()
	if err := fs.Parse(args); err != nil {
		return flagError(err, usage)
	}
	if fs.NArg() < 2 {
		return usagef(usage, "missing command")
	}
	cmd, rest := fs.Arg(0)+" "+fs.Arg(1), fs.Args()[2:]
	switch cmd {
	case "user create":
		return c.userCreate(ctx, rest)
	case "user disable":
		return c.userSetDisabled(ctx, rest, true)
	case "user enable":
		return c.userSetDisabled(ctx, rest, false)
	case "user list":
		return c.userList(ctx, rest)
	case "org create":
		return c.orgCreate(ctx, rest)
	case "org add-member":
		return c.orgAddMember(ctx, rest)
	case "tenant set-tier":
		return c.tenantSetTier(ctx, rest)
	case "tenant set-gate":
		return c.tenantSetGate(ctx, rest)
	case "tenant show-gate":
		return c.tenantShowGate(ctx, rest)
	case "domain add":
		return c.domainAdd(ctx, rest)
	case "domain remove":
		return c.domainRemove(ctx, rest)
	case "domain list":
		return c.domainList(ctx, rest)
	case "knowledge ingest":
		return c.knowledgeIngest(ctx, rest)
	case "knowledge list":
		return c.knowledgeList(ctx, rest)
	case "knowledge delete":
		return c.knowledgeDelete(ctx, rest)
	}
	return usagef(usage, "unknown command %q", cmd)
}

// flagSet returns a flag set with --endpoint and --table, whose defaults are the values so far,
// so they may be given before the command, after it, or both (the last one wins).
func (c *cli) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by run
	fs.Var(&c.endpoint, "endpoint", "")
	fs.Var(&c.table, "table", "")
	fs.Var(&c.knowledgeTable, "knowledge-table", "")
	return fs
}

// parse parses a command's args, after which nothing may follow.
func parse(fs *flag.FlagSet, args []string, use string) error {
	if err := fs.Parse(args); err != nil {
		return flagError(err, use)
	}
	if fs.NArg() > 0 {
		return usagef(use, "unexpected argument %q", fs.Arg(0))
	}
	return nil
}

func flagError(err error, use string) error {
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	return usagef(use, "%v", err)
}

// required returns a usage error naming the first of (flag name, value) pairs whose value is
// blank.
func required(use string, pairs ...string) error {
	for i := 0; i < len(pairs); i += 2 {
		if strings.TrimSpace(pairs[i+1]) == "" {
			return usagef(use, "--%s is required", pairs[i])
		}
	}
	return nil
}

func (c *cli) store(ctx context.Context) (*accountsdb.Store, error) {
	if c.table.value == "" {
		return nil, usagef(usage, "--table must not be empty")
	}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	return provision.Connect(ctx, c.endpoint.value, c.table.value)
}
