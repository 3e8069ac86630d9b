package loginfail

import (
	"strings"
	"unicode"
)

const (
	// weakMaxRunes: a weak word counts only as a message of its own ("Unauthorized",
	// "401 – Access denied"), not inside a sentence about something else.
	weakMaxRunes = 40
	// maxErrorPageLines: on a page that is no login page, text lines count only when the
	// page is short, as error pages are; a long page (an inbox listing "Login failed for
	// build #42", a dashboard) counts only through its alerts and title.
	maxErrorPageLines = 40
	// maxEvidenceRunes is how much of the site's message the question quotes.
	maxEvidenceRunes = 120
)

type source int

const (
	fromAlert source = iota
	fromTitle
	fromText
)

type match struct {
	found    bool
	kind     Kind
	lang     string
	evidence string
}

// better reports whether a message of kind k would replace m: a more important kind
// wins, and among equals the first found (alerts come first, then the title, then the
// text in document order).
func (m match) better(k Kind) bool {
	return !m.found || priority[k] < priority[m.kind]
}

// loginOnly are the kinds that only a login page can report: elsewhere "Two-factor
// authentication" is a settings heading and "you were signed out" a notice about other
// devices.
func loginOnly(k Kind) bool { return k == KindMFARequired || k == KindSessionExpired }

// scan looks for the most important new message on cur. only, when set, limits the kinds.
func scan(prev, cur Page, curLogin bool, only func(Kind) bool) match {
	if !curLogin {
		limit := only
		only = func(k Kind) bool { return !loginOnly(k) && (limit == nil || limit(k)) }
	}
	seenAlerts := sentenceSet(prev.Alerts)
	seenAny := sentenceSet(prev.Alerts, []string{prev.Title}, prev.Texts)
	var best match
	budget := maxSentences
	each := func(texts []string, src source, seen map[string]bool) bool {
		for _, t := range texts {
			if !sentences(t, &budget, func(s string) bool {
				best = consider(best, s, src, curLogin, seen, only)
				return true
			}) {
				return false
			}
		}
		return true
	}
	if !each(cur.Alerts, fromAlert, seenAlerts) || !each([]string{cur.Title}, fromTitle, seenAny) {
		return best
	}
	if curLogin || len(cur.Texts) <= maxErrorPageLines || errorPlace.MatchString(urlPlace(cur.URL)) {
		each(cur.Texts, fromText, seenAny)
	}
	return best
}

// consider matches one sentence of cur against the rules and returns the better of best
// and what it found.
func consider(best match, s string, src source, curLogin bool, seen map[string]bool, only func(Kind) bool) match {
	st := statement(s)
	if st == "" || !runeCountAtMost(st, maxSentenceRunes) {
		return best
	}
	// An alert that was on the previous page only as text is new: some sites keep the
	// message's text in the page and show it by styling.
	if seen[fold(s)] {
		return best
	}
	f := fold(st)
	weakCounts := runeCountAtMost(st, weakMaxRunes) && (src != fromText || curLogin)
	found, langs := strongestMatch(f, func(r rule) bool {
		return best.better(r.kind) && (only == nil || only(r.kind)) && (!r.weak || weakCounts)
	})
	if !found.found {
		return best
	}
	found.evidence, found.lang = st, language(langs, f)
	return found
}

// strongestMatch finds, among the eligible rules, those of the highest priority that the folded
// sentence f matches as a message rather than as a hint; langs are their languages, in order.
func strongestMatch(f string, eligible func(rule) bool) (found match, langs []string) {
	var hint []int
	hintDone := false
	rules, index := ruleSet()
	candidates := index.candidates(f)
	for i, r := range rules {
		if found.found && priority[r.kind] > priority[found.kind] || !candidates[i] || !eligible(r) {
			continue
		}
		loc := r.re().FindStringIndex(f)
		if loc == nil {
			continue
		}
		if !hintDone {
			hint, hintDone = hints.FindStringIndex(f), true
		}
		// "Incorrect password; reset it if you forgot it" is a message; "If your password
		// is incorrect, …" is a hint: what counts is whether the hint comes first.
		if hint != nil && hint[0] < loc[1] {
			continue
		}
		if !found.found || priority[r.kind] < priority[found.kind] {
			found, langs = match{found: true, kind: r.kind, lang: r.lang}, nil
		}
		langs = append(langs, r.lang)
	}
	return found, langs
}

// language picks, among the languages whose rules matched a sentence (in rule order),
// the one with the most markers in it; the first on a tie.
func language(langs []string, folded string) string {
	lang, most := langs[0], -1
	for _, l := range langs {
		if n := markerCount(l, folded); n > most {
			lang, most = l, n
		}
	}
	return lang
}

// sentenceSet is the folded sentences of some texts, to tell the new ones on the next page.
func sentenceSet(groups ...[]string) map[string]bool {
	set := map[string]bool{}
	budget := maxSentences
	for _, g := range groups {
		for _, t := range g {
			sentences(t, &budget, func(s string) bool {
				if runeCountAtMost(s, maxSentenceRunes) {
					set[fold(s)] = true
				}
				return true
			})
		}
	}
	return set
}

// newFieldMatch finds a CAPTCHA or one-time-code field that the action made appear, for
// the challenges that say little more than their field's label.
func newFieldMatch(prev, cur Page) match {
	had := make(map[Field]bool, len(prev.Fields))
	for _, f := range prev.Fields {
		had[fieldKey(f)] = true
	}
	var best match
	for _, f := range cur.Fields {
		if had[fieldKey(f)] {
			continue
		}
		label := strings.TrimSpace(f.Label)
		switch {
		case isCaptcha(f) && best.better(KindCaptcha):
			best = match{found: true, kind: KindCaptcha, evidence: label}
		// Some identity providers name the password field of their second screen
		// "passcode": a password field is no second factor.
		case isOneTimeCode(f) && !strings.EqualFold(strings.TrimSpace(f.Type), "password") && best.better(KindMFARequired):
			best = match{found: true, kind: KindMFARequired, evidence: label}
		}
	}
	return best
}

func fieldKey(f Field) Field {
	return Field{
		Type: strings.ToLower(strings.TrimSpace(f.Type)), Name: strings.TrimSpace(f.Name),
		Autocomplete: strings.ToLower(strings.TrimSpace(f.Autocomplete)), Label: strings.TrimSpace(f.Label),
	}
}

// shorten makes the site's words fit for a question: no control characters, double quotes
// as single ones (the question may travel inside a quoted action), at most
// maxEvidenceRunes runes, cut at a word when it can be.
func shorten(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar:
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	runes := []rune(s)
	if len(runes) <= maxEvidenceRunes {
		return s
	}
	cut := maxEvidenceRunes - 1
	for i := cut; i > maxEvidenceRunes/2; i-- {
		if runes[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(runes[:cut]), " ,;:") + "…"
}
