package gate

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The targets of issue 22: on actions the gate has never seen, in any language.
const (
	minRecall      = 0.98
	maxFalseAlarms = 0.05
)

// TestLabelledLists measures the gate on two labelled lists of actions (risky: it must hold;
// safe: it must not), written independently: gate_labelled.tsv, the project's first list, and
// gate_fresh.tsv, written before the gate judged words by their roles. It holds each to the
// targets and reports recall, false alarms and the score of each language.
func TestLabelledLists(t *testing.T) {
	for _, path := range []string{"testdata/gate_labelled.tsv", "testdata/gate_fresh.tsv", "testdata/gate_probe.tsv"} {
		t.Run(path, func(t *testing.T) {
			actions := readLabelled(t, path)
			var caught, missed, alarms, quiet int
			perLang := map[string][2]int{} // right, total
			for _, la := range actions {
				_, held := Default().Check(la.action)
				c := perLang[la.lang]
				c[1]++
				switch {
				case la.risky && held:
					caught++
				case la.risky:
					missed++
					t.Logf("missed (risky, not held): %s", la.line)
				case held:
					alarms++
					t.Logf("false alarm (safe, held): %s", la.line)
				default:
					quiet++
				}
				if held == la.risky {
					c[0]++
				}
				perLang[la.lang] = c
			}
			recall := float64(caught) / float64(caught+missed)
			falseAlarms := float64(alarms) / float64(alarms+quiet)
			t.Logf("%s: %d actions in %d languages: recall %.3f (%d of %d risky), false alarms %.1f%% (%d of %d safe)",
				path, len(actions), len(perLang), recall, caught, caught+missed, 100*falseAlarms, alarms, alarms+quiet)
			for _, lang := range slices.Sorted(maps.Keys(perLang)) {
				t.Logf("  %s: %d of %d right", lang, perLang[lang][0], perLang[lang][1])
			}
			if recall < minRecall || falseAlarms > maxFalseAlarms {
				t.Errorf("recall %.3f, false alarms %.1f%%; want a recall of at least %.2f and at most %.0f%% false alarms",
					recall, 100*falseAlarms, minRecall, 100*maxFalseAlarms)
			}
		})
	}
}

type labelled struct {
	risky  bool
	lang   string
	line   string
	action Action
}

// readLabelled reads a list: 6 fields a line (want, language, tool, page URL, label, argument)
// or 8 (want, language, tool, page URL, label, attribute "name=value", argument, page text).
// Labels may hold Go escapes such as \u200b.
func readLabelled(t *testing.T, path string) []labelled {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []labelled
	sc := bufio.NewScanner(file)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if (len(f) != 6 && len(f) != 8) || (f[0] != "risky" && f[0] != "safe") {
			t.Fatalf("%s:%d: want 6 or 8 tab-separated fields starting with risky or safe, got %q", path, n, line)
		}
		label, err := strconv.Unquote(`"` + strings.ReplaceAll(f[4], `"`, `\"`) + `"`)
		if err != nil {
			t.Fatalf("%s:%d: label %q: %v", path, n, f[4], err)
		}
		el := Element{Text: label}
		arg, pageText := f[5], ""
		if len(f) == 8 {
			arg, pageText = f[6], f[7]
			if name, value, ok := strings.Cut(f[5], "="); ok {
				switch name {
				case "aria-label":
					el.AriaLabel = value
				case "title":
					el.Title = value
				case "value":
					el.Value = value
				default:
					t.Fatalf("%s:%d: unknown attribute %q", path, n, name)
				}
			}
		}
		pageURL := f[3]
		if pageURL == "-" {
			pageURL = "https://shop.example/product/42"
		}
		a := Action{PageURL: pageURL, PageText: pageText}
		switch f[2] {
		case "click":
			a.Kind, el.Href = Activate, arg
		case "navigate":
			a.Kind, a.URL = Navigate, arg
		case "press":
			a.Kind, a.Key = Key, arg
		case "type", "type+submit":
			a.Kind, a.Submit = Input, f[2] == "type+submit"
			el = Element{Placeholder: label}
		case "scroll", "observe":
		default:
			t.Fatalf("%s:%d: unknown tool %q", path, n, f[2])
		}
		a.Element = el
		out = append(out, labelled{risky: f[0] == "risky", lang: f[1], line: fmt.Sprintf("%s:%d %s", path, n, line), action: a})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
