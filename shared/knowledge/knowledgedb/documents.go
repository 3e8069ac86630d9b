package knowledgedb

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/screenagent/backend/shared/dynamo"
	"github.com/screenagent/backend/shared/knowledge"
)

// Documents is the built-in knowledge store on the Knowledge table.
type Documents struct {
	client *dynamodb.Client
	table  string
	// Now stamps ingestedAt; tests replace it.
	Now func() time.Time
}

// NewDocuments returns a Documents on the Knowledge table.
func NewDocuments(client *dynamodb.Client, knowledgeTable string) *Documents {
	return &Documents{client: client, table: knowledgeTable, Now: time.Now}
}

type docItem struct {
	PK, SK, GSI1PK, GSI1SK string
	ID                     string    `dynamodbav:"id"`
	Domain                 string    `dynamodbav:"domain"`
	Title                  string    `dynamodbav:"title"`
	Source                 string    `dynamodbav:"source"`
	Format                 string    `dynamodbav:"format"`
	Bytes                  int       `dynamodbav:"bytes"`
	ChunkCount             int       `dynamodbav:"chunkCount"`
	Generation             string    `dynamodbav:"generation"`
	IngestedAt             time.Time `dynamodbav:"ingestedAt"`
}

func (i docItem) document() knowledge.Document {
	return knowledge.Document{
		ID: i.ID, Domain: i.Domain, Title: i.Title, Source: i.Source, Format: i.Format,
		Bytes: i.Bytes, ChunkCount: i.ChunkCount, IngestedAt: i.IngestedAt.UTC(),
	}
}

type chunkItem struct {
	PK, SK     string
	DocumentID string `dynamodbav:"documentId"`
	Generation string `dynamodbav:"generation"`
	Section    string `dynamodbav:"section,omitempty"`
	Page       int    `dynamodbav:"page,omitempty"`
	Position   int    `dynamodbav:"position"`
	Content    string `dynamodbav:"content"`
}

func chunkSK(docID, generation string, position int) string {
	return fmt.Sprintf("%s%s#%s#%05d", chunkPrefix, docID, generation, position)
}

// PutDocument stores a document under its domain pattern, replacing the document of the same
// ID (the same source file name) if there is one, and reports whether it replaced one. It
// refuses (knowledge.ErrTooManyChunks) a document that would take the pattern's documents past
// knowledge.MaxChunksPerDomain chunks; that check reads before it writes, so two concurrent
// ingests into one pattern can pass it together. Two concurrent ingests of the same file are
// caught: the later switch of the document item fails with knowledge.ErrConflict.
func (s *Documents) PutDocument(ctx context.Context, tenantID string, doc knowledge.Document) (replaced bool, err error) {
	replaced, err = s.putDocument(ctx, tenantID, doc)
	if err != nil {
		return false, fmt.Errorf("put document %q (%s) of tenant %s: %w", doc.Source, doc.ID, tenantID, err)
	}
	return replaced, nil
}

func (s *Documents) putDocument(ctx context.Context, tenantID string, doc knowledge.Document) (bool, error) {
	if err := checkTenant(tenantID); err != nil {
		return false, err
	}
	if p, err := knowledge.ParsePattern(doc.Domain); err != nil || p.String() != doc.Domain {
		return false, fmt.Errorf("domain %q is not a pattern in canonical form", doc.Domain)
	}
	if doc.ID == "" || strings.Contains(doc.ID, "#") || len(doc.Chunks) == 0 {
		return false, errors.New("a document needs an ID without # and at least one chunk")
	}
	pk := domainPartition(tenantID, doc.Domain)
	existing, err := s.documents(ctx, pk)
	if err != nil {
		return false, err
	}
	var prev *docItem
	others := 0
	for i, d := range existing {
		if d.ID == doc.ID {
			prev = &existing[i]
		} else {
			others += d.ChunkCount
		}
	}
	if others+len(doc.Chunks) > knowledge.MaxChunksPerDomain {
		return false, fmt.Errorf("%w: %s would have %d chunks, the limit is %d", knowledge.ErrTooManyChunks, doc.Domain, others+len(doc.Chunks), knowledge.MaxChunksPerDomain)
	}

	generation, err := newGeneration()
	if err != nil {
		return false, err
	}
	writes := make([]types.WriteRequest, len(doc.Chunks))
	for i, c := range doc.Chunks {
		item, err := attributevalue.MarshalMap(chunkItem{
			PK: pk, SK: chunkSK(doc.ID, generation, c.Position), DocumentID: doc.ID, Generation: generation,
			Section: c.Section, Page: c.Page, Position: c.Position, Content: c.Content,
		})
		if err != nil {
			return false, err
		}
		writes[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}
	}
	if err := batchWrite(ctx, s.client, s.table, writes); err != nil {
		return false, fmt.Errorf("write chunks: %w", err)
	}

	item, err := attributevalue.MarshalMap(docItem{
		PK: pk, SK: docPrefix + doc.ID, GSI1PK: docsIndexPartition(tenantID), GSI1SK: doc.Domain + "#" + doc.Source,
		ID: doc.ID, Domain: doc.Domain, Title: doc.Title, Source: doc.Source, Format: doc.Format,
		Bytes: doc.Bytes, ChunkCount: len(doc.Chunks), Generation: generation, IngestedAt: s.Now().UTC(),
	})
	if err != nil {
		return false, err
	}
	put := &dynamodb.PutItemInput{TableName: &s.table, Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)")}
	if prev != nil {
		put.ConditionExpression = aws.String("generation = :prev")
		put.ExpressionAttributeValues = map[string]types.AttributeValue{":prev": dynamo.Str(prev.Generation)}
	}
	_, err = s.client.PutItem(ctx, put)
	if dynamo.ConditionFailed(err) {
		return false, knowledge.ErrConflict
	}
	if err != nil {
		return false, err
	}
	if err := s.deleteChunks(ctx, pk, doc.ID, generation); err != nil {
		return false, fmt.Errorf("delete the previous version's chunks: %w", err)
	}
	return prev != nil, nil
}

// newGeneration returns a random generation name.
func newGeneration() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generation: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// documents reads the document items of a domain partition with strong consistency (an ingest
// decides on them).
func (s *Documents) documents(ctx context.Context, pk string) ([]docItem, error) {
	in := prefixQuery(s.table, pk, docPrefix)
	in.ConsistentRead = aws.Bool(true)
	items, err := query(ctx, s.client, in)
	if err != nil {
		return nil, err
	}
	var docs []docItem
	if err := attributevalue.UnmarshalListOfMaps(items, &docs); err != nil {
		return nil, err
	}
	return docs, nil
}

// deleteChunks deletes a document's chunks of every generation but keep ("" deletes all).
func (s *Documents) deleteChunks(ctx context.Context, pk, docID, keep string) error {
	in := prefixQuery(s.table, pk, chunkPrefix+docID+"#")
	in.ConsistentRead = aws.Bool(true)
	in.ProjectionExpression = aws.String("PK, SK, generation")
	items, err := query(ctx, s.client, in)
	if err != nil {
		return err
	}
	var deletes []types.WriteRequest
	for _, it := range items {
		var c chunkItem
		if err := attributevalue.UnmarshalMap(it, &c); err != nil {
			return err
		}
		if keep == "" || c.Generation != keep {
			deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: dynamo.Key(c.PK, c.SK)}})
		}
	}
	return batchWrite(ctx, s.client, s.table, deletes)
}

// DeleteDocument deletes a document and its chunks, or returns knowledge.ErrNotFound. The
// document item goes first, which hides the chunks from readers at once.
func (s *Documents) DeleteDocument(ctx context.Context, tenantID, domain, docID string) error {
	if err := s.deleteDocument(ctx, tenantID, domain, docID); err != nil {
		return fmt.Errorf("delete document %s of %s of tenant %s: %w", docID, domain, tenantID, err)
	}
	return nil
}

func (s *Documents) deleteDocument(ctx context.Context, tenantID, domain, docID string) error {
	if err := checkTenant(tenantID); err != nil {
		return err
	}
	pk := domainPartition(tenantID, domain)
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:           &s.table,
		Key:                 dynamo.Key(pk, docPrefix+docID),
		ConditionExpression: aws.String("attribute_exists(PK)"),
	})
	if dynamo.ConditionFailed(err) {
		return knowledge.ErrNotFound
	}
	if err != nil {
		return err
	}
	return s.deleteChunks(ctx, pk, docID, "")
}

// ListDocuments returns a tenant's documents (without their chunks) of one domain pattern, or
// of all when domain is "", ordered by pattern and file name. Listing all reads GSI1, which is
// eventually consistent.
func (s *Documents) ListDocuments(ctx context.Context, tenantID, domain string) ([]knowledge.Document, error) {
	docs, err := s.listDocuments(ctx, tenantID, domain)
	if err != nil {
		return nil, fmt.Errorf("list documents of tenant %s: %w", tenantID, err)
	}
	return docs, nil
}

func (s *Documents) listDocuments(ctx context.Context, tenantID, domain string) ([]knowledge.Document, error) {
	if err := checkTenant(tenantID); err != nil {
		return nil, err
	}
	var items []docItem
	if domain != "" {
		var err error
		if items, err = s.documents(ctx, domainPartition(tenantID, domain)); err != nil {
			return nil, err
		}
	} else {
		raw, err := query(ctx, s.client, &dynamodb.QueryInput{
			TableName:                 &s.table,
			IndexName:                 aws.String(gsi1),
			KeyConditionExpression:    aws.String("GSI1PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": dynamo.Str(docsIndexPartition(tenantID))},
		})
		if err != nil {
			return nil, err
		}
		if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
			return nil, err
		}
	}
	docs := make([]knowledge.Document, len(items))
	for i, it := range items {
		docs[i] = it.document()
	}
	slices.SortFunc(docs, func(a, b knowledge.Document) int {
		return cmp.Or(cmp.Compare(a.Domain, b.Domain), cmp.Compare(a.Source, b.Source))
	})
	return docs, nil
}

// LoadChunks returns the current chunks of every document a tenant stored under any of the
// domain patterns: one Query per pattern, reading documents and chunks together. It reads with
// eventual consistency; a document's items share a partition, whose replicas apply writes in
// order, so a replica that shows a new generation also has its chunks.
func (s *Documents) LoadChunks(ctx context.Context, tenantID string, domains []string) ([]knowledge.StoredChunk, error) {
	if err := checkTenant(tenantID); err != nil {
		return nil, fmt.Errorf("load chunks of tenant %s: %w", tenantID, err)
	}
	var out []knowledge.StoredChunk
	for _, domain := range domains {
		items, err := query(ctx, s.client, &dynamodb.QueryInput{
			TableName:                 &s.table,
			KeyConditionExpression:    aws.String("PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": dynamo.Str(domainPartition(tenantID, domain))},
		})
		if err != nil {
			return nil, fmt.Errorf("load chunks of %s of tenant %s: %w", domain, tenantID, err)
		}
		docs := map[string]docItem{}
		var chunks []chunkItem
		for _, it := range items {
			sk, _ := it["SK"].(*types.AttributeValueMemberS)
			switch {
			case sk == nil:
			case strings.HasPrefix(sk.Value, docPrefix):
				var d docItem
				if err := attributevalue.UnmarshalMap(it, &d); err != nil {
					return nil, fmt.Errorf("load chunks of %s of tenant %s: %w", domain, tenantID, err)
				}
				docs[d.ID] = d
			case strings.HasPrefix(sk.Value, chunkPrefix):
				var c chunkItem
				if err := attributevalue.UnmarshalMap(it, &c); err != nil {
					return nil, fmt.Errorf("load chunks of %s of tenant %s: %w", domain, tenantID, err)
				}
				chunks = append(chunks, c)
			}
		}
		for _, c := range chunks {
			d, ok := docs[c.DocumentID]
			if !ok || d.Generation != c.Generation {
				continue
			}
			out = append(out, knowledge.StoredChunk{
				DocumentID: d.ID, DocumentTitle: d.Title, Source: d.Source,
				DocChunk: knowledge.DocChunk{Section: c.Section, Page: c.Page, Position: c.Position, Content: c.Content},
			})
		}
	}
	return out, nil
}
