package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/localstack"
)

// setting is a flag or environment value that remembers whether it was given: an endpoint
// given empty means AWS itself, one not given means the running local stack's.
type setting struct {
	value string
	set   bool
}

func (s *setting) String() string     { return s.value }
func (s *setting) Set(v string) error { s.value, s.set = v, true; return nil }

// repoRoot finds the checkout whose running stack the command talks to by default.
var repoRoot = ddblocal.RepoRoot

// resolve settles the endpoint and table names once, before the first store is opened: what
// was given wins; the rest comes from the one stack running in this checkout (.local/stack.json),
// and the command says on stderr which DynamoDB it talks to.
func (c *cli) resolve() error {
	if c.resolved {
		return nil
	}
	c.resolved = true
	if c.endpoint.set {
		where := c.endpoint.value
		if where == "" {
			where = "AWS (the default credential chain's account and region)"
		}
		fmt.Fprintf(c.stderr, "admin: talking to DynamoDB at %s, table %s\n", where, c.table.value)
		return nil
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	st, err := localstack.Find(root, `--endpoint URL (or DYNAMODB_ENDPOINT; --endpoint "" for AWS)`)
	if err != nil {
		return err
	}
	c.endpoint.value = st.DynamoDBEndpoint
	if !c.table.set {
		c.table.value = st.Table(defaultTable)
	}
	if !c.knowledgeTable.set {
		c.knowledgeTable.value = st.Table(defaultKnowledgeTable)
	}
	fmt.Fprintf(c.stderr, "admin: talking to %s\n", st.Describe())
	return nil
}

// explain turns the store's failures an operator can fix into what to do; the SDK's text
// (operation names, status codes, request IDs) is of no use to them.
func (c *cli) explain(err error) error {
	where := "DynamoDB at " + c.endpoint.value
	if c.endpoint.value == "" {
		where = "DynamoDB in AWS"
	}
	var missing *types.ResourceNotFoundException
	switch {
	case errors.As(err, &missing):
		return fmt.Errorf("a table this command needs (%s or %s) does not exist in %s: name the right ones with --table and --knowledge-table, or reach the right stack with --endpoint",
			c.table.value, c.knowledgeTable.value, where)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s does not answer: is its stack still running? (`make run` starts one)", where)
	}
	return err
}
