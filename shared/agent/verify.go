package agent

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/agent/page"
	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tasks"
)

var (
	expectURLContains = regexp.MustCompile(`(?i)url\s+(?:contains|includes|has)\s+"([^"]+)"`)
	expectText        = regexp.MustCompile(`(?i)(?:text|message|element|button|link)\s+"([^"]+)"\s+(appears|shows|is shown|is visible|disappears|vanishes|is gone|closes)`)
	expectURLChanges  = regexp.MustCompile(`(?i)\burl\s+changes\b|\bnew page\b|\bnavigates?\b`)
	expectPageChanges = regexp.MustCompile(`(?i)\bpage\s+changes\b`)
	// alternativeSep splits "A, or B" / "A or else B" outside quotes.
	alternativeSep = regexp.MustCompile(`(?i)[,;]?\s+or(?:\s+else)?\s+`)
)

// parseExpectation reads an <Expect> block: a description with checkable parts written as
// url contains "…", text "…" appears, text "…" disappears, url changes, page changes. Parts
// joined by "or" are alternatives: any one of them is the expected outcome.
func parseExpectation(text string) *tasks.Expectation {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	alts := splitAlternatives(text)
	x := parseOutcome(alts[0])
	x.Description = shorten(oneLine(text), 500)
	for _, a := range alts[1:] {
		if len(x.Or) == maxExpectItems {
			break
		}
		o := parseOutcome(a)
		o.Description = shorten(oneLine(a), 200)
		x.Or = append(x.Or, o)
	}
	return &x
}

// splitAlternatives cuts text at " or " where it is not inside double quotes.
func splitAlternatives(text string) []string {
	var out []string
	start, inQuote := 0, false
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '"':
			inQuote = !inQuote
		case !inQuote:
			if loc := alternativeSep.FindStringIndex(text[i:]); loc != nil && loc[0] == 0 {
				if part := strings.TrimSpace(text[start:i]); part != "" {
					out = append(out, part)
				}
				start = i + loc[1]
				i = start - 1
			}
		}
	}
	if part := strings.TrimSpace(text[start:]); part != "" || len(out) == 0 {
		out = append(out, part)
	}
	return out
}

func parseOutcome(text string) tasks.Expectation {
	var x tasks.Expectation
	if m := expectURLContains.FindStringSubmatch(text); m != nil {
		x.URLContains = m[1]
	}
	for _, m := range expectText.FindAllStringSubmatch(text, maxExpectItems) {
		switch strings.ToLower(m[2]) {
		case "disappears", "vanishes", "is gone", "closes":
			x.TextDisappears = append(x.TextDisappears, m[1])
		default:
			x.TextAppears = append(x.TextAppears, m[1])
		}
	}
	x.URLChanges = expectURLChanges.MatchString(text) && x.URLContains == ""
	x.PageChanges = expectPageChanges.MatchString(text)
	return x
}

// checkable reports whether the expectation, or one of its alternatives, has something to
// check deterministically.
func checkable(x *tasks.Expectation) bool {
	if x == nil {
		return false
	}
	for _, o := range outcomes(x) {
		if checkableOutcome(o) {
			return true
		}
	}
	return false
}

func checkableOutcome(x tasks.Expectation) bool {
	return x.URLChanges || x.URLContains != "" || len(x.TextAppears) > 0 || len(x.TextDisappears) > 0 || x.PageChanges
}

// outcomes are the expectation's alternatives, itself first.
func outcomes(x *tasks.Expectation) []tasks.Expectation {
	first := *x
	first.Or = nil
	return append([]tasks.Expectation{first}, x.Or...)
}

// observation is what the new page shows about the last action.
type observation struct {
	prevURL, url string
	// changed is false when the page looks exactly as when the action was chosen.
	changed bool
	report  *tasks.Report
	text    string   // the page's text and element labels, lower case
	lines   []string // the page's text lines and element labels, lower case, one per entry
	// errors are the error signals new since the action was chosen (page.ErrorSignals).
	errors []page.ErrorSignal
}

func observe(last *tasks.Brief, url, fp string, pg *pagemodel.Page, prevDigest []byte, report *tasks.Report) observation {
	if url != last.URL {
		// A new page that shows an error is the answer to the action, even an error the
		// previous page showed too (a form sent on and rendered again with its message).
		prevDigest = nil
	}
	lines := pageLines(pg)
	return observation{prevURL: last.URL, url: url, changed: last.Fingerprint != fp, report: report,
		text: strings.Join(lines, "\n"), lines: lines, errors: page.ErrorSignals(pg, prevDigest)}
}

// pageLines is everything the page says, lower case: its title, texts and the labels of its
// elements, one entry each.
func pageLines(pg *pagemodel.Page) []string {
	lines := []string{strings.ToLower(pg.Title())}
	for _, t := range pg.Texts() {
		lines = append(lines, strings.ToLower(t))
	}
	for _, e := range pg.Elements() {
		l := e.Text
		for _, a := range e.Attrs {
			if a.Name == "aria-label" || a.Name == "value" || a.Name == "placeholder" || a.Name == "title" {
				l += " " + a.Value
			}
		}
		lines = append(lines, strings.ToLower(l))
	}
	return lines
}

// The outcome of a check: it holds, it does not, or the page cannot tell.
const (
	fails = iota - 1
	cannotTell
	holds
)

// verify checks the last action deterministically: the client's report, the errors the page
// shows since, then the expected outcome (any of its alternatives) against the new page. It
// says what it checked in evidence. Undecided when nothing checkable was expected, or when the
// alternatives that can be checked fail but another one cannot be checked.
func verify(x *tasks.Expectation, o observation) (verdict string, evidence []string) {
	if o.report.Failed() {
		return tasks.Unverified, append([]string{"the client reported the action failed: " + describeError(o.report.Error)}, resultEvidence(o.report)...)
	}
	if len(o.errors) > 0 {
		var errs []string
		for _, e := range o.errors {
			errs = append(errs, e.Kind+" "+quote(e.Text))
		}
		return tasks.Unverified, []string{"the page shows errors since: " + strings.Join(errs, ", ")}
	}
	if !checkable(x) {
		return tasks.Undecided, nil
	}
	undecided := false
	var failed []string
	for _, alt := range outcomes(x) {
		if !checkableOutcome(alt) {
			undecided = true
			continue
		}
		result, ev := checkOutcome(alt, o)
		switch result {
		case holds:
			return tasks.Verified, ev
		case cannotTell:
			undecided = true
		}
		failed = append(failed, ev...)
	}
	if undecided {
		return tasks.Undecided, failed
	}
	return tasks.Unverified, failed
}

// checkOutcome checks one alternative: it holds when all its parts hold.
func checkOutcome(x tasks.Expectation, o observation) (int, []string) {
	t := tally{result: holds}
	if x.URLChanges {
		t.check(truth(o.url != o.prevURL), "the URL changed", "the URL did not change")
	}
	if x.URLContains != "" {
		t.check(truth(strings.Contains(strings.ToLower(o.url), strings.ToLower(x.URLContains))),
			fmt.Sprintf("the URL contains %q", x.URLContains), fmt.Sprintf("the URL does not contain %q", x.URLContains))
	}
	for _, s := range x.TextAppears {
		t.check(truth(strings.Contains(o.text, strings.ToLower(s))), fmt.Sprintf("%q is on the page", s), fmt.Sprintf("%q is not on the page", s))
	}
	for _, s := range x.TextDisappears {
		r, where := gone(s, o.lines)
		no := fmt.Sprintf("%q is still on the page", s)
		if r == cannotTell {
			no = fmt.Sprintf("%s is only mentioned in %s", quote(s), quote(where))
		}
		t.check(r, fmt.Sprintf("%q is gone", s), no)
	}
	if x.PageChanges {
		t.check(truth(o.changed), "the page changed", "the page did not change")
	}
	return t.result, t.evidence
}

// tally is an alternative's checks so far: the worst outcome and what each check found.
type tally struct {
	result   int
	evidence []string
}

// check adds the outcome r of one part, said as yes when it holds and as no otherwise.
func (t *tally) check(r int, yes, no string) {
	if r == holds {
		t.evidence = append(t.evidence, yes)
		return
	}
	t.result = min(t.result, r)
	t.evidence = append(t.evidence, no)
}

// truth is the outcome of a part the page can always tell.
func truth(b bool) int {
	if b {
		return holds
	}
	return fails
}

// gone says whether text t vanished: it fails when a line still is t (or an element still
// shows it among a few words), and cannot tell when t is only quoted inside a longer message
// ("Draft "Old notes" was deleted."), which names a thing without showing it. Only t as whole
// words counts: "Subscribed" on a thank-you page is not the "Subscribe" button still there.
func gone(t string, lines []string) (int, string) {
	t = strings.ToLower(strings.TrimSpace(t))
	mention := ""
	for _, l := range lines {
		if !containsWords(l, t) {
			continue
		}
		if len(l) <= 2*len(t)+8 {
			return fails, ""
		}
		mention = l
	}
	if mention != "" {
		return cannotTell, shorten(mention, 120)
	}
	return holds, ""
}

// containsWords reports whether t occurs in l with no letter or digit glued to either end.
func containsWords(l, t string) bool {
	if t == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(l[from:], t)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(t)
		before, _ := utf8.DecodeLastRuneInString(l[:start])
		after, _ := utf8.DecodeRuneInString(l[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		from = start + 1
	}
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
