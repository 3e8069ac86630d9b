// Package bm25 ranks documents for a query with Okapi BM25, the lexical ranking of Lucene and
// Elasticsearch. It is small on purpose: an index is built per lookup over at most a few
// thousand chunks, so everything stays in memory and nothing is persisted.
//
// The score of a document D for a query Q is
//
//	sum over distinct terms t of Q:  idf(t) · tf(t,D)·(k1+1) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl))
//	idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
//
// with N documents, n(t) of them containing t, |D| the document's length in terms and avgdl
// the average length. This idf (Lucene's) is never negative, so a very common term never
// lowers a score.
package bm25

import (
	"cmp"
	"math"
	"slices"
)

// Params are BM25's free parameters: K1 saturates term frequency, B normalizes for length.
type Params struct {
	K1, B float64
}

// Default is the usual setting (Lucene's and Elasticsearch's defaults).
var Default = Params{K1: 1.2, B: 0.75}

// Index holds the statistics of a corpus of tokenized documents.
type Index struct {
	p      Params
	tf     []map[string]int
	length []int
	avg    float64
	df     map[string]int
}

// New indexes docs, each a list of terms (see Tokenize).
func New(docs [][]string, p Params) *Index {
	ix := &Index{p: p, tf: make([]map[string]int, len(docs)), length: make([]int, len(docs)), df: map[string]int{}}
	total := 0
	for i, terms := range docs {
		tf := make(map[string]int, len(terms))
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			ix.df[t]++
		}
		ix.tf[i], ix.length[i] = tf, len(terms)
		total += len(terms)
	}
	if len(docs) > 0 {
		ix.avg = float64(total) / float64(len(docs))
	}
	return ix
}

// Scores returns every document's score for the query terms; a repeated query term counts once.
func (ix *Index) Scores(query []string) []float64 {
	scores := make([]float64, len(ix.tf))
	n := float64(len(ix.tf))
	seen := map[string]bool{}
	for _, t := range query {
		if seen[t] {
			continue
		}
		seen[t] = true
		df := ix.df[t]
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for i, tf := range ix.tf {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			norm := 1 - ix.p.B
			if ix.avg > 0 {
				norm += ix.p.B * float64(ix.length[i]) / ix.avg
			}
			scores[i] += idf * f * (ix.p.K1 + 1) / (f + ix.p.K1*norm)
		}
	}
	return scores
}

// Hit is a ranked document: its index in the corpus and its score.
type Hit struct {
	Doc   int
	Score float64
}

// Top returns up to k documents with a positive score, best first; equal scores keep corpus
// order, so rankings are deterministic.
func (ix *Index) Top(query []string, k int) []Hit {
	var hits []Hit
	for i, s := range ix.Scores(query) {
		if s > 0 {
			hits = append(hits, Hit{Doc: i, Score: s})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	if len(hits) > k {
		hits = hits[:max(k, 0)]
	}
	return hits
}
