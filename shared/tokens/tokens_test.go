package tokens

import (
	"strings"
	"testing"
)

func TestEstimate(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"1234567", 3},
		{"price 12", 3},
		{"\n\n\n", 1},
		{"日本", 1},
	}
	for _, tc := range tests {
		if got := Estimate(tc.s); got != tc.want {
			t.Errorf("Estimate(%q): got %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestLineMilli checks what budgeters rely on: a line priced with LineMilli costs exactly
// what it adds with its newline, and joined lines never cost more than their parts. The
// page view's test repeats this on rendered pages.
func TestLineMilli(t *testing.T) {
	lines := []string{"", "a", "x.", "12", "⋯", "»", "日本", `[1] button "OK"`, "/path", "Text:", "don't stop", "camelCase word", "١٢٣ مرحبا"}
	sum := 0
	for _, l := range lines {
		if got, want := LineMilli(l), Milli(l+"\n"); got != want {
			t.Errorf("LineMilli(%q): got %d, want %d", l, got, want)
		}
		sum += LineMilli(l)
	}
	if joined := Milli(strings.Join(lines, "\n") + "\n"); joined > sum {
		t.Errorf("joined lines cost %d, want at most their sum %d", joined, sum)
	}
}

// FuzzLineMilli feeds the estimator arbitrary text, which it gets from pages: it must not
// panic, and a single line's price must stay what it adds to the text.
func FuzzLineMilli(f *testing.F) {
	for _, s := range []string{"", "hello", "a.b", "\xff\xfe", "日本語 text 123", "١٢٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
		if got, want := LineMilli(line), Milli(line+"\n"); got != want {
			t.Errorf("LineMilli(%q): got %d, want %d", line, got, want)
		}
		if Estimate(s) < 0 {
			t.Errorf("Estimate(%q) is negative", s)
		}
	})
}

func TestUnspaced(t *testing.T) {
	tests := []struct {
		r    rune
		want bool
	}{
		{'a', false}, {'é', false}, {'Ж', false}, {'ب', false}, {'1', false}, {' ', false},
		{'日', true}, {'カ', true}, {'ひ', true}, {'ก', true}, {'한', true},
	}
	for _, tc := range tests {
		if got := Unspaced(tc.r); got != tc.want {
			t.Errorf("Unspaced(%q): got %v, want %v", tc.r, got, tc.want)
		}
	}
}
