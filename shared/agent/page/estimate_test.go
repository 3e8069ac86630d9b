package page

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tokens"
	"github.com/tiktoken-go/tokenizer"
)

func o200k(t testing.TB) tokenizer.Codec {
	t.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatalf("load o200k_base: %v", err)
	}
	return enc
}

func exactTokens(t testing.TB, enc tokenizer.Codec, s string) int {
	t.Helper()
	n, err := enc.Count(s)
	if err != nil {
		t.Fatalf("count tokens: %v", err)
	}
	return n
}

func fixtures(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../pagemodel/testdata/*.html")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// TestTokenEstimateCalibration holds the estimator to ±10% of the exact o200k_base count
// on each fixture, both the DOM as sent and the page as rendered for the prompt.
func TestTokenEstimateCalibration(t *testing.T) {
	enc := o200k(t)
	for name, dom := range fixtures(t) {
		for _, tc := range []struct{ what, text string }{
			{"dom", dom},
			{"rendered", Render(pagemodel.Parse(dom), Options{Query: "", Budget: DefaultBudget}).Text},
		} {
			t.Run(name+"/"+tc.what, func(t *testing.T) {
				exact := exactTokens(t, enc, tc.text)
				est := tokens.Estimate(tc.text)
				ratio := float64(est) / float64(exact)
				t.Logf("%-13s %-8s estimate %5d  o200k %5d  ratio %.3f", name, tc.what, est, exact, ratio)
				if ratio < 0.9 || ratio > 1.1 {
					t.Errorf("estimate %d is %+.1f%% off the o200k count %d, want within ±10%%", est, (ratio-1)*100, exact)
				}
			})
		}
	}
}

// TestLineMilli checks what the budgeter relies on: a line priced with tokens.LineMilli costs
// exactly what it adds with its newline, and joined lines never cost more than their parts.
func TestLineMilli(t *testing.T) {
	lines := []string{"", "a", "x.", "12", "⋯", "»", "日本", "[1] button \"OK\"", "/path", "Text:"}
	for _, dom := range fixtures(t) {
		lines = append(lines, strings.Split(Render(pagemodel.Parse(dom), Options{Query: "", Budget: DefaultBudget}).Text, "\n")...)
	}
	sum := 0
	for _, l := range lines {
		if got, want := tokens.LineMilli(l), tokens.Milli(l+"\n"); got != want {
			t.Errorf("tokens.LineMilli(%q) = %d, want %d", l, got, want)
		}
		sum += tokens.LineMilli(l)
	}
	if joined := tokens.Milli(strings.Join(lines, "\n") + "\n"); joined > sum {
		t.Errorf("joined lines cost %d, more than their sum %d", joined, sum)
	}
}
