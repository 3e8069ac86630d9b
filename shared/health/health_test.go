package health

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fakeDB answers DescribeTable with errs for a table, never (until the caller gives up) for a
// table in hang, and active otherwise.
type fakeDB struct {
	errs map[string]error
	hang map[string]bool
}

func (f fakeDB) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if f.hang[*in.TableName] {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err := f.errs[*in.TableName]; err != nil {
		return nil, err
	}
	return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{TableStatus: types.TableStatusActive}}, nil
}

func TestCheck(t *testing.T) {
	tables := map[string]string{"tasksTable": "T", "accountsTable": "A"}
	cases := []struct {
		name       string
		db         fakeDB
		llm        LLM
		timeout    time.Duration
		want       string
		wantTables map[string]string
		wantLLM    string
	}{
		{"all reachable", fakeDB{}, LLM{Configured: true, Model: "m"}, 0, Healthy,
			map[string]string{"tasksTable": Healthy, "accountsTable": Healthy}, Healthy},
		{"no LLM does not lower the status", fakeDB{}, LLM{}, 0, Healthy,
			map[string]string{"tasksTable": Healthy, "accountsTable": Healthy}, NotConfigured},
		{"one table missing", fakeDB{errs: map[string]error{"A": &types.ResourceNotFoundException{}}}, LLM{}, 0, Unhealthy,
			map[string]string{"tasksTable": Healthy, "accountsTable": Unhealthy}, NotConfigured},
		{"database unreachable", fakeDB{errs: map[string]error{"A": errors.New("connection refused"), "T": errors.New("connection refused")}}, LLM{}, 0, Unhealthy,
			map[string]string{"tasksTable": Unhealthy, "accountsTable": Unhealthy}, NotConfigured},
		{"hanging table times out", fakeDB{hang: map[string]bool{"T": true}}, LLM{}, 50 * time.Millisecond, Unhealthy,
			map[string]string{"tasksTable": Unhealthy, "accountsTable": Healthy}, NotConfigured},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Checker{DB: tc.db, Tables: tables, LLM: tc.llm, Timeout: tc.timeout}
			r := c.Check(context.Background())
			if r.Status != tc.want {
				t.Errorf("status = %s, want %s", r.Status, tc.want)
			}
			for name, want := range tc.wantTables {
				s := r.Services[name]
				if s.Status != want {
					t.Errorf("%s status = %s, want %s", name, s.Status, want)
				}
				if s.LatencyMs == nil {
					t.Errorf("%s has no latencyMs", name)
				}
			}
			if got := r.Services["llm"].Status; got != tc.wantLLM {
				t.Errorf("llm status = %s, want %s", got, tc.wantLLM)
			}
			if _, err := time.Parse(time.RFC3339Nano, r.Timestamp); err != nil {
				t.Errorf("timestamp %q is not RFC 3339: %v", r.Timestamp, err)
			}
		})
	}
}

func TestCheckReportsSearch(t *testing.T) {
	cases := []struct {
		name       string
		search     Search
		wantStatus string
	}{
		{"configured", Search{Configured: true}, Healthy},
		{"not configured does not lower the status", Search{}, NotConfigured},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Checker{DB: fakeDB{}, Tables: map[string]string{"tasksTable": "T"}, LLM: LLM{Configured: true}, Search: tc.search}
			r := c.Check(context.Background())
			s, ok := r.Services["search"]
			if !ok || s.Status != tc.wantStatus || s.Configured == nil || *s.Configured != tc.search.Configured {
				t.Errorf("services.search = %+v (present %v), want status %s configured %v", s, ok, tc.wantStatus, tc.search.Configured)
			}
			if r.Status != Healthy {
				t.Errorf("overall status = %s, want %s", r.Status, Healthy)
			}
		})
	}
}
