package bm25

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRankDomainCap indexes and ranks as many chunks as one domain pattern may hold
// (knowledge.MaxChunksPerDomain, each about MaxChunkRunes long), which is what a built-in
// lookup does per request.
func BenchmarkRankDomainCap(b *testing.B) {
	texts := make([]string, 2000)
	for i := range texts {
		var sb strings.Builder
		for sb.Len() < 1200 {
			fmt.Fprintf(&sb, "policy section %d covers expense item %d and travel rule %d. ", i%37, i%101, i%13)
		}
		texts[i] = sb.String()
	}
	query := Tokenize("how do I submit a travel expense")
	b.ResetTimer()
	for b.Loop() {
		docs := make([][]string, len(texts))
		for i, t := range texts {
			docs[i] = Tokenize(t)
		}
		New(docs, Default).Top(query, 5)
	}
}
