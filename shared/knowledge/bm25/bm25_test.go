package bm25

import (
	"math"
	"slices"
	"testing"
)

var corpus = []string{
	0: "To submit an expense, open Finance and choose Submit. Attach the receipt.",
	1: "Travel policy: book flights through the travel portal. Economy class for flights under six hours.",
	2: "Expense limits: meals up to 50 euros a day. Expense reports are due monthly.",
	3: "The office opens at nine. Visitors sign in at reception.",
	4: "Receipts must be attached to every expense claim; lost receipts need a manager's note.",
}

func index() *Index {
	docs := make([][]string, len(corpus))
	for i, text := range corpus {
		docs[i] = Tokenize(text)
	}
	return New(docs, Default)
}

func docs(hits []Hit) []int {
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

func TestTopRanksTheCorpus(t *testing.T) {
	ix := index()
	tests := []struct {
		query string
		k     int
		want  []int
	}{
		// "expense" is in three documents; the one that says it twice and is short wins.
		{"expense", 5, []int{2, 0, 4}},
		{"how do I submit an expense", 5, []int{0, 2, 4}},
		{"receipt", 5, []int{0}},
		{"receipts", 5, []int{4}},
		{"flights travel", 5, []int{1}},
		{"visitors reception", 5, []int{3}},
		{"expense", 2, []int{2, 0}},
		{"EXPENSE!", 1, []int{2}},
		{"parking", 5, nil},
		{"the and of", 5, nil},
		{"", 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := docs(ix.Top(Tokenize(tt.query), tt.k)); !slices.Equal(got, tt.want) {
				t.Errorf("Top(%q, %d) = %v, want %v", tt.query, tt.k, got, tt.want)
			}
		})
	}
}

// TestScoresFormula checks one score against the formula worked by hand.
func TestScoresFormula(t *testing.T) {
	ix := New([][]string{{"a", "b"}, {"b", "c", "c", "d"}}, Params{K1: 1.2, B: 0.75})
	// "c": N=2, n=1, idf = ln(1 + 1.5/1.5) = ln 2; doc 1: tf=2, |D|=4, avgdl=3.
	want := math.Log(2) * 2 * 2.2 / (2 + 1.2*(0.25+0.75*4.0/3.0))
	got := ix.Scores([]string{"c", "c"})
	if got[0] != 0 || math.Abs(got[1]-want) > 1e-12 {
		t.Errorf("Scores(c) = %v, want [0 %v]", got, want)
	}
}

func TestTopBreaksTiesByCorpusOrder(t *testing.T) {
	ix := New([][]string{{"x", "y"}, {"x", "y"}, {"x", "y"}}, Default)
	if got := docs(ix.Top([]string{"x"}, 3)); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("Top on equal documents = %v, want [0 1 2]", got)
	}
}

func TestEmptyIndex(t *testing.T) {
	ix := New(nil, Default)
	if len(ix.tf) != 0 || len(ix.Top([]string{"x"}, 5)) != 0 {
		t.Error("an empty index ranked something")
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"How do I submit an Expense?", []string{"submit", "expense"}},
		{"Finance > Submit (step 2)", []string{"finance", "submit", "step"}},
		{"e-mail x 2026 Größe", []string{"mail", "2026", "größe"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
