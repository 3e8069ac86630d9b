package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/infra/localstack"
	"github.com/screenagent/backend/shared/accounts"
	"github.com/screenagent/backend/shared/accounts/accountsdb"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

type result struct {
	code           int
	stdout, stderr string
}

var internals = regexp.MustCompile(`transaction item|ConditionalCheckFailed|TransactionCanceled|operation error|StatusCode:`)

// admin runs the command in-process with env as its whole environment.
func admin(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := run(t.Context(), args, strings.NewReader(stdin), &out, &errOut, lookup)
	// Operators read these messages: the store's internals never reach them.
	if internals.MatchString(errOut.String()) {
		t.Errorf("admin %s: stderr %q shows the store's internals", strings.Join(args, " "), errOut.String())
	}
	return result{code, out.String(), errOut.String()}
}

// fixture is a fresh table and the environment that points the command at it.
type fixture struct {
	env   map[string]string
	store *accountsdb.Store
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	db := dynamotest.New(t)
	table := db.Tables["AccountsTable"]
	return fixture{
		env:   map[string]string{"DYNAMODB_ENDPOINT": db.Endpoint, "ACCOUNTS_TABLE": table},
		store: accountsdb.New(db.Client, table),
	}
}

// ok runs a command that must succeed and returns its stdout.
func (f fixture) ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := admin(t, f.env, stdin, args...)
	if r.code != 0 {
		t.Fatalf("admin %s: exit %d, stderr %q; want 0", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

func TestUsageErrors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no arguments", nil, "missing command"},
		{"group only", []string{"user"}, "missing command"},
		{"unknown command", []string{"user", "delete", "--email", "a@example.com"}, `unknown command "user delete"`},
		{"unknown flag", []string{"user", "list", "--all"}, "flag provided but not defined: -all"},
		{"stray argument", []string{"user", "list", "extra"}, `unexpected argument "extra"`},
		{"create without email", []string{"user", "create", "--name", "Ana"}, "--email is required"},
		{"create without name", []string{"user", "create", "--email", "a@example.com"}, "--name is required"},
		{"create with bad email", []string{"user", "create", "--email", "not-an-email", "--name", "A"}, "--email must be a single address"},
		{"disable without email", []string{"user", "disable"}, "--email is required"},
		{"org without name", []string{"org", "create"}, "--name is required"},
		{"add-member bad role", []string{"org", "add-member", "--org", "A", "--email", "a@example.com", "--role", "owner"}, "--role must be admin or member"},
		{"set-tier bad tier", []string{"tenant", "set-tier", "--org", "A", "--tier", "gold"}, "--tier must be one of free, pro, enterprise"},
		{"set-tier without tier", []string{"tenant", "set-tier", "--org", "A"}, "--tier is required"},
		{"set-tier with both", []string{"tenant", "set-tier", "--org", "A", "--email", "a@example.com", "--tier", "pro"}, "give one of them"},
		{"set-tier with neither", []string{"tenant", "set-tier", "--tier", "pro"}, "give --org NAME, or --email E"},
		{"set-tier personal without email", []string{"tenant", "set-tier", "--personal", "--tier", "pro"}, "--personal needs --email"},
		{"empty table", []string{"--table", "", "user", "list"}, "--table must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := admin(t, f.env, "", tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) || !strings.Contains(r.stderr, "usage: admin") {
				t.Errorf("got exit %d, stderr %q; want 2 with %q and a usage line", r.code, r.stderr, tt.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	r := admin(t, nil, "", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "tenant set-tier") {
		t.Errorf("--help: got exit %d, stdout %q; want 0 and the usage", r.code, r.stdout)
	}
}

func TestUserCreate(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.ok(t, "", "org", "create", "--name", "Acme")

	out := f.ok(t, "correct horse battery\n", "user", "create", "--email", "Ana@Example.com", "--name", "Ana", "--org", "acme", "--password-stdin")
	if !strings.Contains(out, "created user ana@example.com") || strings.Contains(out, "password:") {
		t.Errorf("stdout = %q, want the created user and no password", out)
	}
	ana, err := f.store.GetUserByEmail(ctx, "ana@example.com")
	if err != nil {
		t.Fatalf("GetUserByEmail: %v", err)
	}
	if ok, _ := accounts.VerifyPassword(ana.PasswordHash, "correct horse battery"); !ok {
		t.Errorf("the stored hash does not match the password from stdin (without its newline)")
	}
	if ms, err := f.store.ListMemberships(ctx, ana.ID); err != nil || len(ms) != 1 || ms[0].TenantName != "Acme" || ms[0].Role != accounts.RoleMember {
		t.Errorf("ListMemberships = (%+v, %v), want one member membership of Acme", ms, err)
	}

	// Without --password-stdin a password is generated and printed once.
	out = f.ok(t, "", "--table", f.env["ACCOUNTS_TABLE"], "user", "create", "--email", "bob@example.com", "--name", "Bob")
	m := regexp.MustCompile(`(?m)^password: (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("stdout = %q, want a password line", out)
	}
	bob, _ := f.store.GetUserByEmail(ctx, "bob@example.com")
	if ok, _ := accounts.VerifyPassword(bob.PasswordHash, m[1]); !ok || len(m[1]) < 20 {
		t.Errorf("generated password %q: matches the stored hash = %t, want a strong matching password", m[1], ok)
	}

	failures := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"duplicate email", "another password", []string{"user", "create", "--email", "ANA@example.com", "--name", "A2", "--password-stdin"}, "email already registered"},
		{"short password", "short\n", []string{"user", "create", "--email", "c@example.com", "--name", "C", "--password-stdin"}, "password must be at least 8 characters"},
		{"unknown organization", "", []string{"user", "create", "--email", "d@example.com", "--name", "D", "--org", "Nope"}, `organization "Nope" does not exist: create it first (admin org create --name "Nope")`},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			r := admin(t, f.env, tt.stdin, tt.args...)
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "usage:") {
				t.Errorf("got exit %d, stderr %q; want 1 with %q and no usage", r.code, r.stderr, tt.want)
			}
		})
	}
	users, _ := f.store.ListUsers(ctx)
	if len(users) != 2 {
		t.Errorf("got %d users after the failures, want 2", len(users))
	}
}

func TestUserDisableEnableList(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.ok(t, "password-1", "user", "create", "--email", "ana@example.com", "--name", "Ana", "--password-stdin")
	ana, _ := f.store.GetUserByEmail(ctx, "ana@example.com")
	tok, _ := accounts.NewToken()
	rec := accounts.TokenRecord{Hash: accounts.HashToken(tok), UserID: ana.ID, TenantID: ana.ID, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	if err := f.store.PutToken(ctx, rec); err != nil {
		t.Fatal(err)
	}

	f.ok(t, "", "user", "disable", "--email", "Ana@example.com")
	if u, _ := f.store.GetUser(ctx, ana.ID); !u.Disabled {
		t.Errorf("after user disable: Disabled = false, want true")
	}
	if _, err := f.store.GetToken(ctx, rec.Hash); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("after user disable: GetToken error %v, want ErrNotFound", err)
	}
	out := f.ok(t, "", "user", "list")
	if !regexp.MustCompile(`(?m)^EMAIL\s+NAME\s+DISABLED\s+ID\n` + `ana@example.com\s+Ana\s+true\s+` + ana.ID + `$`).MatchString(out) {
		t.Errorf("user list = %q, want a header and Ana disabled", out)
	}

	f.ok(t, "", "user", "enable", "--email", "ana@example.com")
	if u, _ := f.store.GetUser(ctx, ana.ID); u.Disabled {
		t.Errorf("after user enable: Disabled = true, want false")
	}
	if r := admin(t, f.env, "", "user", "disable", "--email", "nobody@example.com"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("disable unknown user: got exit %d, stderr %q; want 1 and not found", r.code, r.stderr)
	}
}

func TestOrgAndTier(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.ok(t, "", "org", "create", "--name", "Acme")
	if r := admin(t, f.env, "", "org", "create", "--name", "ACME"); r.code != 1 || !strings.Contains(r.stderr, "already taken") {
		t.Errorf("duplicate org: got exit %d, stderr %q; want 1 and already taken", r.code, r.stderr)
	}
	f.ok(t, "password-1", "user", "create", "--email", "ana@example.com", "--name", "Ana", "--password-stdin")
	f.ok(t, "", "org", "add-member", "--org", "acme", "--email", "ana@example.com", "--role", "admin")
	if r := admin(t, f.env, "", "org", "add-member", "--org", "Acme", "--email", "ana@example.com"); r.code != 1 || !strings.Contains(r.stderr, "already a member") {
		t.Errorf("second add-member: got exit %d, stderr %q; want 1 and already a member", r.code, r.stderr)
	}
	ana, _ := f.store.GetUserByEmail(ctx, "ana@example.com")
	ms, _ := f.store.ListMemberships(ctx, ana.ID)
	if len(ms) != 1 || ms[0].Role != accounts.RoleAdmin {
		t.Fatalf("memberships = %+v, want one admin membership", ms)
	}
	acme := ms[0].TenantID

	// By e-mail alone: Ana also belongs to Acme, so which tenant is meant must be said.
	r := admin(t, f.env, "", "tenant", "set-tier", "--email", "ana@example.com", "--tier", "pro")
	if r.code != 1 || !strings.Contains(r.stderr, `belongs to organization "Acme"`) || !strings.Contains(r.stderr, "--personal") {
		t.Errorf("set-tier --email of a member: got exit %d, stderr %q; want 1 asking for --personal or --org", r.code, r.stderr)
	}
	out := f.ok(t, "", "tenant", "set-tier", "--email", "ana@example.com", "--personal", "--tier", "pro")
	if tn, _ := f.store.GetTenant(ctx, ana.ID); tn.Tier != accounts.TierPro || !strings.Contains(out, "(personal, id "+ana.ID+")") {
		t.Errorf("personal tier = %s, stdout %q; want pro and the tenant named", tn.Tier, out)
	}
	if tn, _ := f.store.GetTenant(ctx, acme); tn.Tier != accounts.TierFree {
		t.Errorf("Acme tier = %s, want free: only the personal tenant changes", tn.Tier)
	}
	out = f.ok(t, "", "tenant", "set-tier", "--org", "Acme", "--tier", "enterprise")
	if tn, _ := f.store.GetTenant(ctx, acme); tn.Tier != accounts.TierEnterprise || !strings.Contains(out, "enterprise") {
		t.Errorf("after --org set-tier: tier %s, stdout %q; want enterprise", tn.Tier, out)
	}
}

func TestTableSelection(t *testing.T) {
	f := newFixture(t)
	// Flags override the environment, before or after the command.
	wrong := map[string]string{"DYNAMODB_ENDPOINT": f.env["DYNAMODB_ENDPOINT"], "ACCOUNTS_TABLE": "NoSuchTable"}
	for _, args := range [][]string{
		{"--table", f.env["ACCOUNTS_TABLE"], "user", "list"},
		{"user", "list", "--table", f.env["ACCOUNTS_TABLE"]},
	} {
		if r := admin(t, wrong, "", args...); r.code != 0 {
			t.Errorf("admin %v: exit %d, stderr %q; want 0", args, r.code, r.stderr)
		}
	}
	if r := admin(t, wrong, "", "user", "list"); r.code != 1 || !strings.Contains(r.stderr, "NoSuchTable") && !strings.Contains(r.stderr, "non-existent table") {
		t.Errorf("ACCOUNTS_TABLE=NoSuchTable: exit %d, stderr %q; want 1 naming the missing table", r.code, r.stderr)
	}
}

// stackRecord writes a running stack's record into root as `make run` does (pid: a live process).
func stackRecord(t *testing.T, root, name string, s localstack.Stack) {
	t.Helper()
	s.PID = os.Getppid()
	b, _ := json.Marshal(s)
	if err := os.MkdirAll(localstack.Dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(localstack.Dir(root), name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// inCheckout makes root the checkout whose stacks the command looks for.
func inCheckout(t *testing.T, root string) {
	old := repoRoot
	repoRoot = func() (string, error) { return root, nil }
	t.Cleanup(func() { repoRoot = old })
}

func TestWhichDynamoDB(t *testing.T) {
	stackA := localstack.Stack{API: "http://127.0.0.1:3100", DynamoDBEndpoint: "http://127.0.0.1:8100", Tables: map[string]string{"AccountsTable": "AccountsTable", "KnowledgeTable": "KnowledgeTable"}}
	stackB := localstack.Stack{API: "http://127.0.0.1:3200", DynamoDBEndpoint: "http://127.0.0.1:8200"}
	tests := []struct {
		name                    string
		env                     map[string]string
		stacks                  map[string]localstack.Stack
		wantEndpoint, wantTable string
		wantErr                 error
		wantSaid                string // on stderr
	}{
		{"the running stack", nil, map[string]localstack.Stack{localstack.File: stackA}, "http://127.0.0.1:8100", "AccountsTable", nil, "local stack of"},
		{"none running", nil, nil, "", "", localstack.ErrNone, ""},
		{"two running", nil, map[string]localstack.Stack{localstack.File: stackA, "stack-9.json": stackB}, "", "", localstack.ErrSeveral, ""},
		{"environment wins", map[string]string{"DYNAMODB_ENDPOINT": "http://h:1", "ACCOUNTS_TABLE": "T"}, map[string]localstack.Stack{localstack.File: stackA}, "http://h:1", "T", nil, "DynamoDB at http://h:1, table T"},
		{"empty endpoint means AWS", map[string]string{"DYNAMODB_ENDPOINT": ""}, nil, "", "AccountsTable", nil, "AWS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, s := range tt.stacks {
				stackRecord(t, root, name, s)
			}
			inCheckout(t, root)
			var said bytes.Buffer
			c := newCLI(nil, nil, &said, func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			err := c.resolve()
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "--endpoint URL") {
					t.Errorf("got %q, want it to say how to choose", err)
				}
				return
			}
			if c.endpoint.value != tt.wantEndpoint || c.table.value != tt.wantTable {
				t.Errorf("got (%q, %q), want (%q, %q)", c.endpoint.value, c.table.value, tt.wantEndpoint, tt.wantTable)
			}
			if !strings.Contains(said.String(), tt.wantSaid) {
				t.Errorf("stderr %q, want it to say %q", said.String(), tt.wantSaid)
			}
		})
	}
}

// With nothing in the environment, a command reaches the DynamoDB of the stack running in the
// checkout and says so.
func TestCommandReachesTheRunningStack(t *testing.T) {
	f := newFixture(t)
	root := t.TempDir()
	stackRecord(t, root, localstack.File, localstack.Stack{API: "http://127.0.0.1:3100", DynamoDBEndpoint: f.env["DYNAMODB_ENDPOINT"],
		Tables: map[string]string{"AccountsTable": f.env["ACCOUNTS_TABLE"]}})
	inCheckout(t, root)
	r := admin(t, map[string]string{}, "", "org", "create", "--name", "Acme")
	if r.code != 0 || !strings.Contains(r.stderr, "talking to the local stack of "+filepath.Join(root, ".local", "stack.json")) {
		t.Fatalf("got exit %d, stderr %q; want 0 naming the stack", r.code, r.stderr)
	}
	if _, err := f.store.GetOrganizationByName(t.Context(), "Acme"); err != nil {
		t.Errorf("the organization is not in the running stack's table: %v", err)
	}
}

// A DynamoDB that does not answer or lacks the table is told as what to do, not as the SDK's error
// (the admin helper fails any message that shows the store's internals).
func TestStoreFailuresSayWhatToDo(t *testing.T) {
	f := newFixture(t)
	refused := func() string { // a port nothing listens on
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return "http://" + l.Addr().String()
	}()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"nothing listens", map[string]string{"DYNAMODB_ENDPOINT": refused}, "does not answer: is its stack still running?"},
		{"no such table", map[string]string{"DYNAMODB_ENDPOINT": f.env["DYNAMODB_ENDPOINT"], "ACCOUNTS_TABLE": "NoSuchTable"}, "(NoSuchTable or KnowledgeTable) does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := admin(t, tc.env, "", "user", "list"); r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("got exit %d, stderr %q; want 1 saying %q", r.code, r.stderr, tc.want)
			}
		})
	}
}
