package knowledge

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/screenagent/backend/shared/knowledge/bm25"
)

// ChunkLoader reads every current chunk a tenant stored under any of the domain patterns.
type ChunkLoader interface {
	LoadChunks(ctx context.Context, tenantID string, domains []string) ([]StoredChunk, error)
}

// BuiltIn is the Source backed by the built-in knowledge store: it loads the chunks stored
// under every pattern that matches the page's host (the host itself and wildcards of its
// parent domains) and ranks them for the query with BM25.
type BuiltIn struct {
	Store ChunkLoader
	// TopK is how many chunks a lookup returns; 0 means DefaultTopK.
	TopK int
}

// Name is SourceBuiltIn.
func (BuiltIn) Name() string { return SourceBuiltIn }

// Retrieve returns the TopK chunks that best match the query. Without a query (or with only
// stop words) it returns the first chunks in document order, which is the best guess at what a
// page's knowledge starts with. HasKnowledge is true whenever the host has any chunk, even if
// none matched the query.
func (b BuiltIn) Retrieve(ctx context.Context, r Request) (Retrieval, error) {
	stored, err := b.Store.LoadChunks(ctx, r.TenantID, PatternsFor(r.Host))
	if err != nil {
		return Retrieval{}, fmt.Errorf("load chunks for %s: %w", r.Host, err)
	}
	if len(stored) == 0 {
		return Retrieval{}, nil
	}
	// Corpus order is the tie-break of the ranking, so make it independent of the store's.
	slices.SortFunc(stored, func(a, b StoredChunk) int {
		return cmp.Or(cmp.Compare(a.DocumentTitle, b.DocumentTitle), cmp.Compare(a.DocumentID, b.DocumentID), cmp.Compare(a.Position, b.Position))
	})
	k := cmp.Or(b.TopK, DefaultTopK)
	var picked []StoredChunk
	if terms := bm25.Tokenize(r.Query); len(terms) == 0 {
		picked = stored[:min(k, len(stored))]
	} else {
		docs := make([][]string, len(stored))
		for i, c := range stored {
			// Title and section words count as the chunk's words: a chunk under "Submission"
			// answers "submission" even when its text never repeats the heading.
			docs[i] = bm25.Tokenize(c.DocumentTitle + "\n" + c.Section + "\n" + c.Content)
		}
		for _, h := range bm25.New(docs, bm25.Default).Top(terms, k) {
			picked = append(picked, stored[h.Doc])
		}
	}
	return Retrieval{
		Chunks:       wireChunks(picked),
		Citations:    citationsOf(picked),
		HasKnowledge: true,
		Considered:   len(stored),
	}, nil
}

func wireChunks(stored []StoredChunk) []Chunk {
	chunks := make([]Chunk, len(stored))
	for i, c := range stored {
		meta := map[string]any{"documentId": c.DocumentID, "position": c.Position, "source": c.Source}
		if c.Section != "" {
			meta["section"] = c.Section
		}
		if c.Page > 0 {
			meta["page"] = c.Page
		}
		chunks[i] = Chunk{ID: c.ID(), Content: c.Content, DocumentTitle: c.DocumentTitle, Metadata: meta}
	}
	return chunks
}

// citationsOf derives the citations of chunks from their metadata: one per distinct (document,
// section, page), in the chunks' order.
func citationsOf(chunks []StoredChunk) []Citation {
	cites := []Citation{}
	seen := map[Citation]bool{}
	for _, c := range chunks {
		cite := Citation{DocumentID: c.DocumentID, DocumentTitle: c.DocumentTitle, Section: c.Section, Page: c.Page}
		if !seen[cite] {
			seen[cite] = true
			cites = append(cites, cite)
		}
	}
	return cites
}
