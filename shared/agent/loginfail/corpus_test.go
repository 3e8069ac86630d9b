package loginfail

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// corpusCase is one labelled page transition of testdata/corpus/*.json.
type corpusCase struct {
	Name   string `json:"name"`
	Note   string `json:"note"`
	Action string `json:"action"`
	// Prev is the page the action was taken on. Omitted, it is Cur before the action:
	// the same URL, title and fields, no alerts, and Cur's texts less the New ones.
	Prev *Page    `json:"prev"`
	Cur  Page     `json:"cur"`
	New  []string `json:"new"`
	Want struct {
		Failed   bool   `json:"failed"`
		Kind     Kind   `json:"kind"`
		Language string `json:"language"`
	} `json:"want"`
	file string
}

func (c corpusCase) prev() Page {
	if c.Prev != nil {
		return *c.Prev
	}
	p := Page{URL: c.Cur.URL, Title: c.Cur.Title, Fields: c.Cur.Fields}
	for _, t := range c.Cur.Texts {
		if !slices.Contains(c.New, t) {
			p.Texts = append(p.Texts, t)
		}
	}
	return p
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	paths, err := filepath.Glob("testdata/corpus/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var all []corpusCase
	names := map[string]bool{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cases []corpusCase
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cases); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, c := range cases {
			c.file = filepath.Base(p)
			switch {
			case c.Name == "" || c.Note == "" || c.Action == "":
				t.Fatalf("%s: case %q needs a name, a note and an action", c.file, c.Name)
			case names[c.Name]:
				t.Fatalf("%s: case name %q is used twice", c.file, c.Name)
			case c.Want.Failed != (c.Want.Kind != ""):
				t.Fatalf("%s/%s: a failure needs a kind, and only a failure has one", c.file, c.Name)
			case c.Prev != nil && len(c.New) > 0:
				t.Fatalf("%s/%s: new lines describe an omitted prev; this case has one", c.file, c.Name)
			}
			for _, n := range c.New {
				if !slices.Contains(c.Cur.Texts, n) {
					t.Fatalf("%s/%s: new line %q is not among cur's texts", c.file, c.Name, n)
				}
			}
			names[c.Name] = true
			all = append(all, c)
		}
	}
	return all
}

// TestCorpusPrecisionRecall measures the detector on the labelled corpus: whether a
// failure is reported (precision and recall), and for the failures found, whether the
// kind and the language are the labelled ones.
func TestCorpusPrecisionRecall(t *testing.T) {
	cases := loadCorpus(t)
	var tp, fp, fn, tn, kindOK, langOK, langWanted int
	langs := map[string]int{}
	for _, c := range cases {
		got := Detect(c.prev(), c.Cur, c.Action)
		switch {
		case got.Failed && c.Want.Failed:
			tp++
			if got.Kind == c.Want.Kind {
				kindOK++
			} else {
				t.Errorf("%s/%s: kind %q (evidence %q), want %q", c.file, c.Name, got.Kind, got.Evidence, c.Want.Kind)
			}
			if c.Want.Language != "" {
				langWanted++
				if got.Language == c.Want.Language {
					langOK++
				} else {
					t.Errorf("%s/%s: language %q, want %q", c.file, c.Name, got.Language, c.Want.Language)
				}
			}
		case got.Failed:
			fp++
			t.Logf("false positive %s/%s: %s %q", c.file, c.Name, got.Kind, got.Evidence)
		case c.Want.Failed:
			fn++
			t.Logf("false negative %s/%s: want %s", c.file, c.Name, c.Want.Kind)
		default:
			tn++
		}
		if c.Want.Failed && c.Want.Language != "" {
			langs[c.Want.Language]++
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	var langList []string
	for l, n := range langs {
		langList = append(langList, l+":"+strconv.Itoa(n))
	}
	sort.Strings(langList)
	t.Logf("corpus: %d cases (%d failures, %d not), failures by language %v", len(cases), tp+fn, fp+tn, langList)
	t.Logf("precision %.3f (tp %d, fp %d), recall %.3f (fn %d), kind right %d/%d, language right %d/%d",
		precision, tp, fp, recall, fn, kindOK, tp, langOK, langWanted)

	if len(cases) < 60 {
		t.Errorf("corpus has %d cases, want at least 60", len(cases))
	}
	if len(langs) < 6 {
		t.Errorf("failures cover %d languages, want at least 6", len(langs))
	}
	if precision < 0.95 {
		t.Errorf("precision %.3f, want >= 0.95", precision)
	}
	if recall < 0.90 {
		t.Errorf("recall %.3f, want >= 0.90", recall)
	}
}
