package dynamotest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/sam"
)

func TestMain(m *testing.M) { Main(m) }

func TestNew(t *testing.T) {
	tmpl, err := loadTemplate()
	if err != nil {
		t.Fatal(err)
	}
	var first *DB
	t.Run("tables", func(t *testing.T) {
		db := New(t)
		first = db
		if got, want := db.Endpoint, Endpoint(); got == "" || got != want {
			t.Errorf("Endpoint = %q, want %q (non-empty)", got, want)
		}
		if got, want := len(db.Tables), len(tmpl.Tables()); got != want {
			t.Errorf("got %d tables, want %d", got, want)
		}
		for _, def := range tmpl.Tables() {
			name := db.Tables[def.LogicalID]
			if _, err := db.Client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
				t.Errorf("DescribeTable %s (%s): %v", name, def.LogicalID, err)
			}
		}
	})
	t.Run("cleanup deleted the tables", func(t *testing.T) {
		out, err := first.Client.ListTables(context.Background(), &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range first.Tables {
			if slices.Contains(out.TableNames, name) {
				t.Errorf("table %s still exists after the test ended", name)
			}
		}
	})
	t.Run("tests get distinct tables", func(t *testing.T) {
		a, b := New(t), New(t)
		for id, name := range a.Tables {
			if b.Tables[id] == name {
				t.Errorf("two DBs share table %s", name)
			}
		}
	})
}

func TestEnv(t *testing.T) {
	tmpl, err := loadTemplate()
	if err != nil {
		t.Fatal(err)
	}
	db := New(t)

	// Independently of New's resolution: the Globals variables that are a plain !Ref to a table.
	want := map[string]string{"DYNAMODB_ENDPOINT": db.Endpoint}
	for k, v := range globalVariables(tmpl) {
		ref, ok := v.(sam.Intrinsic)
		if !ok || ref.Name != "Ref" {
			continue
		}
		id, _ := ref.Arg.(string)
		if tmpl.Resources[id].Type == "AWS::DynamoDB::Table" {
			want[k] = db.Tables[id]
		}
	}
	if len(db.Env) != len(want) {
		t.Errorf("Env = %v, want %v", db.Env, want)
	}
	for k, v := range want {
		if got := db.Env[k]; got != v {
			t.Errorf("Env[%s] = %q, want %q", k, got, v)
		}
	}
	// The configuration names are a contract between the template and the code (DESIGN.md).
	if got, want := db.Env["TASKS_TABLE"], db.Tables["TasksTable"]; got == "" || got != want {
		t.Errorf("Env[TASKS_TABLE] = %q, want %q", got, want)
	}
}

func TestAttributeNames(t *testing.T) {
	item := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "p"},
		"memory": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"recent": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"index": &types.AttributeValueMemberN{Value: "1"}}},
				&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"thought": &types.AttributeValueMemberS{Value: "t"}}},
			}},
		}},
	}
	want := []string{"PK", "memory", "memory.recent", "memory.recent[]", "memory.recent[].index", "memory.recent[].thought"}
	if got := AttributeNames(item); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestUnset(t *testing.T) {
	type inner struct {
		A string
		B *int
	}
	type outer struct {
		Name  string
		Items []inner
		Ptr   *inner
		At    time.Time
		skip  int
	}
	n := 1
	tests := []struct {
		name string
		v    outer
		want []string
	}{
		{"every field", outer{Name: "x", Items: []inner{{A: "a", B: &n}}, Ptr: &inner{A: "a", B: &n}, At: time.Unix(1, 0)}, nil},
		{"nothing", outer{}, []string{"outer.Name", "outer.Items", "outer.Ptr", "outer.At"}},
		{"inside", outer{Name: "x", Items: []inner{{A: "a"}}, Ptr: &inner{B: &n}, At: time.Unix(1, 0)}, []string{"outer.Items[0].B"}},
		{"a pointer to a zero value is set", outer{Name: "x", Items: []inner{{A: "a", B: new(int)}}, Ptr: &inner{}, At: time.Unix(1, 0)}, nil},
	}
	for _, tc := range tests {
		if got := Unset(tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
