package knowledgedb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/infra/dynamotest"
	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/knowledge"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func pattern(t *testing.T, s string) knowledge.Pattern {
	t.Helper()
	p, err := knowledge.ParsePattern(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func patternStrings(ps []knowledge.Pattern) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func TestDomains(t *testing.T) {
	db := dynamotest.New(t)
	d := NewDomains(db.Client, db.Tables["AccountsTable"])
	ctx := context.Background()

	for _, p := range []string{"app.example.com", "*.example.org"} {
		if err := d.AddDomain(ctx, "tenant-a", pattern(t, p)); err != nil {
			t.Fatalf("AddDomain(%s): %v", p, err)
		}
	}
	if err := d.AddDomain(ctx, "tenant-a", pattern(t, "APP.example.com")); !errors.Is(err, knowledge.ErrDomainExists) {
		t.Errorf("adding a pattern twice: got %v, want ErrDomainExists", err)
	}
	got, err := d.ListDomains(ctx, "tenant-a")
	if want := []string{"*.example.org", "app.example.com"}; err != nil || !slices.Equal(patternStrings(got), want) {
		t.Errorf("ListDomains(tenant-a) = %v, %v; want %v", patternStrings(got), err, want)
	}
	if got, err := d.ListDomains(ctx, "tenant-b"); err != nil || len(got) != 0 {
		t.Errorf("ListDomains(tenant-b) = %v, %v; want none: another tenant's patterns", patternStrings(got), err)
	}
	if err := d.RemoveDomain(ctx, "tenant-a", pattern(t, "app.example.com")); err != nil {
		t.Fatalf("RemoveDomain: %v", err)
	}
	if err := d.RemoveDomain(ctx, "tenant-a", pattern(t, "app.example.com")); !errors.Is(err, knowledge.ErrNotFound) {
		t.Errorf("removing a pattern twice: got %v, want ErrNotFound", err)
	}
	if got, _ := d.ListDomains(ctx, "tenant-a"); !slices.Equal(patternStrings(got), []string{"*.example.org"}) {
		t.Errorf("after removing: %v, want [*.example.org]", patternStrings(got))
	}
	var ve *knowledge.ValidationError
	if _, err := d.ListDomains(ctx, "a#b"); !errors.As(err, &ve) || ve.Field != "tenantId" {
		t.Errorf("ListDomains(a#b) error = %v, want a tenantId ValidationError", err)
	}
}

func doc(domain, source string, contents ...string) knowledge.Document {
	d := knowledge.Document{
		ID: knowledge.DocumentID(domain, source), Domain: domain, Title: "Title of " + source, Source: source, Format: "markdown",
	}
	for i, c := range contents {
		d.Chunks = append(d.Chunks, knowledge.DocChunk{Section: fmt.Sprintf("S%d", i+1), Position: i + 1, Content: c})
	}
	d.ChunkCount = len(d.Chunks)
	return d
}

func contents(chunks []knowledge.StoredChunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Content
	}
	slices.Sort(out)
	return out
}

// chunkItems counts the chunk items of a partition as stored, current or not.
func chunkItems(t *testing.T, s *Documents, tenantID, domain string) int {
	t.Helper()
	out, err := s.client.Query(context.Background(), &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :c)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": dynamo.Str(domainPartition(tenantID, domain)), ":c": dynamo.Str(chunkPrefix)},
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Items)
}

func TestDocuments(t *testing.T) {
	db := dynamotest.New(t)
	s := NewDocuments(db.Client, db.Tables["KnowledgeTable"])
	s.Now = func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }
	ctx := context.Background()

	policy := doc("app.example.com", "policy.md", "submit expenses in Finance", "meals up to 50 euros")
	if replaced, err := s.PutDocument(ctx, "tenant-a", policy); err != nil || replaced {
		t.Fatalf("PutDocument = %v, %v; want a new document", replaced, err)
	}
	if err := func() error {
		_, err := s.PutDocument(ctx, "tenant-a", doc("*.example.com", "handbook.md", "office opens at nine"))
		return err
	}(); err != nil {
		t.Fatal(err)
	}

	t.Run("load", func(t *testing.T) {
		got, err := s.LoadChunks(ctx, "tenant-a", []string{"app.example.com", "*.example.com"})
		want := []string{"meals up to 50 euros", "office opens at nine", "submit expenses in Finance"}
		if err != nil || !slices.Equal(contents(got), want) {
			t.Fatalf("LoadChunks = %v, %v; want %v", contents(got), err, want)
		}
		for _, c := range got {
			if c.Content == "submit expenses in Finance" && (c.DocumentID != policy.ID || c.DocumentTitle != "Title of policy.md" || c.Source != "policy.md" || c.Section != "S1" || c.Position != 1) {
				t.Errorf("chunk = %+v, want the policy's first chunk with its metadata", c)
			}
		}
		if got, _ := s.LoadChunks(ctx, "tenant-a", []string{"other.example.com"}); len(got) != 0 {
			t.Errorf("LoadChunks(other.example.com) = %v, want none", contents(got))
		}
	})

	t.Run("tenant isolation", func(t *testing.T) {
		if got, err := s.LoadChunks(ctx, "tenant-b", []string{"app.example.com", "*.example.com"}); err != nil || len(got) != 0 {
			t.Errorf("tenant-b LoadChunks = %v, %v; want none of tenant-a's chunks", contents(got), err)
		}
		if got, err := s.ListDocuments(ctx, "tenant-b", ""); err != nil || len(got) != 0 {
			t.Errorf("tenant-b ListDocuments = %v, %v; want none", got, err)
		}
	})

	t.Run("list", func(t *testing.T) {
		all, err := s.ListDocuments(ctx, "tenant-a", "")
		if err != nil || len(all) != 2 || all[0].Source != "handbook.md" || all[1].Source != "policy.md" {
			t.Fatalf("ListDocuments(all) = %+v, %v; want handbook.md (*.example.com) then policy.md", all, err)
		}
		want := knowledge.Document{
			ID: policy.ID, Domain: "app.example.com", Title: "Title of policy.md", Source: "policy.md", Format: "markdown",
			ChunkCount: 2, IngestedAt: s.Now(),
		}
		if !reflect.DeepEqual(all[1], want) {
			t.Errorf("listed %+v, want %+v", all[1], want)
		}
		one, err := s.ListDocuments(ctx, "tenant-a", "app.example.com")
		if err != nil || len(one) != 1 || one[0].ID != policy.ID {
			t.Errorf("ListDocuments(app.example.com) = %+v, %v; want the policy", one, err)
		}
	})

	t.Run("replace", func(t *testing.T) {
		replaced, err := s.PutDocument(ctx, "tenant-a", doc("app.example.com", "policy.md", "new single chunk"))
		if err != nil || !replaced {
			t.Fatalf("PutDocument again = %v, %v; want replaced", replaced, err)
		}
		got, _ := s.LoadChunks(ctx, "tenant-a", []string{"app.example.com"})
		if want := []string{"new single chunk"}; !slices.Equal(contents(got), want) {
			t.Errorf("after replacing: %v, want %v", contents(got), want)
		}
		if n := chunkItems(t, s, "tenant-a", "app.example.com"); n != 1 {
			t.Errorf("%d chunk items stored after replacing, want 1: the old version's are deleted", n)
		}
	})

	t.Run("leftovers of an interrupted ingest", func(t *testing.T) {
		item, err := attributevalue.MarshalMap(chunkItem{
			PK: domainPartition("tenant-a", "app.example.com"), SK: chunkSK(policy.ID, "deadbeef0000", 1),
			DocumentID: policy.ID, Generation: "deadbeef0000", Position: 1, Content: "orphan",
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.LoadChunks(ctx, "tenant-a", []string{"app.example.com"})
		if slices.Contains(contents(got), "orphan") {
			t.Error("a chunk of another generation was loaded")
		}
		if _, err := s.PutDocument(ctx, "tenant-a", doc("app.example.com", "policy.md", "newer")); err != nil {
			t.Fatal(err)
		}
		if n := chunkItems(t, s, "tenant-a", "app.example.com"); n != 1 {
			t.Errorf("%d chunk items after the next ingest, want 1: it cleans up leftovers", n)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if err := s.DeleteDocument(ctx, "tenant-a", "app.example.com", policy.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteDocument(ctx, "tenant-a", "app.example.com", policy.ID); !errors.Is(err, knowledge.ErrNotFound) {
			t.Errorf("deleting twice: %v, want ErrNotFound", err)
		}
		if got, _ := s.LoadChunks(ctx, "tenant-a", []string{"app.example.com"}); len(got) != 0 {
			t.Errorf("after deleting: %v, want none", contents(got))
		}
		if n := chunkItems(t, s, "tenant-a", "app.example.com"); n != 0 {
			t.Errorf("%d chunk items after deleting, want 0", n)
		}
	})
}

func TestDocumentsRefuse(t *testing.T) {
	db := dynamotest.New(t)
	s := NewDocuments(db.Client, db.Tables["KnowledgeTable"])
	ctx := context.Background()

	many := make([]string, knowledge.MaxChunksPerDomain-1)
	for i := range many {
		many[i] = "x"
	}
	if _, err := s.PutDocument(ctx, "t", doc("example.com", "big.txt", many...)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutDocument(ctx, "t", doc("example.com", "more.txt", "a", "b")); !errors.Is(err, knowledge.ErrTooManyChunks) {
		t.Errorf("going past the per-domain cap: %v, want ErrTooManyChunks", err)
	}
	if _, err := s.PutDocument(ctx, "t", doc("example.com", "big.txt", "replacing", "it")); err != nil {
		t.Errorf("replacing the big document with a small one: %v, want it allowed", err)
	}
	if _, err := s.PutDocument(ctx, "t", doc("Example.com", "a.txt", "x")); err == nil {
		t.Error("a domain that is not in canonical form was accepted")
	}
	if _, err := s.PutDocument(ctx, "t", doc("example.com", "empty.txt")); err == nil {
		t.Error("a document without chunks was accepted")
	}
}
