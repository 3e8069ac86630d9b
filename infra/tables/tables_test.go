package tables_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/ddblocal"
	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/infra/tables"
	"github.com/screenagent/backend/shared/sam"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func loadTemplate(t *testing.T) *sam.Template {
	t.Helper()
	root, err := ddblocal.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := sam.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tmpl.Tables()) == 0 {
		t.Fatal("template.yaml has no AWS::DynamoDB::Table")
	}
	return tmpl
}

func TestNames(t *testing.T) {
	tmpl, err := sam.Parse([]byte(`
Resources:
  TasksTable: {Type: AWS::DynamoDB::Table, Properties: {}}
  OtherTable: {Type: AWS::DynamoDB::Table, Properties: {}}
  Fn: {Type: AWS::Serverless::Function, Properties: {}}
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prefix string
		want   map[string]string
	}{
		{"", map[string]string{"TasksTable": "TasksTable", "OtherTable": "OtherTable"}},
		{"t1_", map[string]string{"TasksTable": "t1_TasksTable", "OtherTable": "t1_OtherTable"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("prefix %q", tt.prefix), func(t *testing.T) {
			got := tables.Names(tmpl, tt.prefix)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Names = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCreateMatchesTemplate(t *testing.T) {
	ctx := context.Background()
	tmpl := loadTemplate(t)
	client := dynamotest.New(t).Client
	prefix := uniquePrefix()

	names, err := tables.Create(ctx, client, tmpl, prefix)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(func() {
		if err := tables.Delete(context.Background(), client, names); err != nil {
			t.Errorf("Delete: %v", err)
		}
	})
	if got, want := fmt.Sprint(names), fmt.Sprint(tables.Names(tmpl, prefix)); got != want {
		t.Errorf("Create returned %s, want %s", got, want)
	}
	again, err := tables.Create(ctx, client, tmpl, prefix)
	if err != nil {
		t.Fatalf("second Create: got %v, want nil", err)
	}
	if got, want := fmt.Sprint(again), fmt.Sprint(names); got != want {
		t.Errorf("second Create returned %s, want %s", got, want)
	}

	for _, def := range tmpl.Tables() {
		t.Run(def.LogicalID, func(t *testing.T) {
			name := names[def.LogicalID]
			out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatalf("DescribeTable %s: %v", name, err)
			}
			d := out.Table
			if got, want := d.TableStatus, types.TableStatusActive; got != want {
				t.Errorf("status = %s, want %s", got, want)
			}
			if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
				t.Errorf("billing mode = %+v, want PAY_PER_REQUEST", d.BillingModeSummary)
			}
			if got, want := attributes(d.AttributeDefinitions), wantAttributes(def.AttributeDefinitions); got != want {
				t.Errorf("attributes = %s, want %s", got, want)
			}
			if got, want := keys(d.KeySchema), wantKeys(def.KeySchema); got != want {
				t.Errorf("key schema = %s, want %s", got, want)
			}
			var gsis, lsis []string
			for _, ix := range d.GlobalSecondaryIndexes {
				gsis = append(gsis, index(aws.ToString(ix.IndexName), ix.KeySchema, ix.Projection))
			}
			for _, ix := range d.LocalSecondaryIndexes {
				lsis = append(lsis, index(aws.ToString(ix.IndexName), ix.KeySchema, ix.Projection))
			}
			if got, want := sorted(gsis), wantIndexes(def.GlobalSecondaryIndexes); got != want {
				t.Errorf("global indexes = %s, want %s", got, want)
			}
			if got, want := sorted(lsis), wantIndexes(def.LocalSecondaryIndexes); got != want {
				t.Errorf("local indexes = %s, want %s", got, want)
			}

			ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatalf("DescribeTimeToLive %s: %v", name, err)
			}
			gotTTL := ""
			if d := ttl.TimeToLiveDescription; d != nil && d.TimeToLiveStatus == types.TimeToLiveStatusEnabled {
				gotTTL = aws.ToString(d.AttributeName)
			}
			if gotTTL != def.TTLAttribute {
				t.Errorf("TTL attribute = %q, want %q", gotTTL, def.TTLAttribute)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	tmpl := loadTemplate(t)
	client := dynamotest.New(t).Client

	names, err := tables.Create(ctx, client, tmpl, uniquePrefix())
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := tables.Delete(ctx, client, names); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := tables.Delete(ctx, client, names); err != nil {
		t.Errorf("second Delete: got %v, want nil (missing tables are fine)", err)
	}
	out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if slices.Contains(out.TableNames, name) {
			t.Errorf("table %s still listed after Delete", name)
		}
	}
}

// uniquePrefix keeps this package's tables apart from other packages' on a shared server.
func uniquePrefix() string {
	return "tables" + rand.Text()[:8] + "_"
}

func attributes(as []types.AttributeDefinition) string {
	var out []string
	for _, a := range as {
		out = append(out, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	return sorted(out)
}

func wantAttributes(as []sam.Attribute) string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name+":"+a.Type)
	}
	return sorted(out)
}

func keys(ks []types.KeySchemaElement) string {
	var out []string
	for _, k := range ks {
		out = append(out, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	return fmt.Sprint(out)
}

func wantKeys(ks []sam.Key) string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Name+":"+k.KeyType)
	}
	return fmt.Sprint(out)
}

func index(name string, ks []types.KeySchemaElement, p *types.Projection) string {
	proj := ""
	if p != nil {
		proj = string(p.ProjectionType) + fmt.Sprint(sorted(p.NonKeyAttributes))
	}
	return name + keys(ks) + proj
}

func wantIndexes(ixs []sam.Index) string {
	var out []string
	for _, ix := range ixs {
		out = append(out, ix.Name+wantKeys(ix.KeySchema)+ix.ProjectionType+fmt.Sprint(sorted(ix.NonKeyAttributes)))
	}
	return sorted(out)
}

func sorted(s []string) string {
	s = slices.Clone(s)
	sort.Strings(s)
	return fmt.Sprint(s)
}
