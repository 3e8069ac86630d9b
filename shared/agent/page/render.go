// Package page is the interact engine's view of a page parsed by shared/pagemodel: the page
// part of the agent's prompt, an indented outline of the page in document order where text
// stays with its elements, open dialogs and cookie banners are marked and elements new or
// changed since the previous step are marked, cut to a token budget; and what the engine
// reads of the page beyond its elements: its overlays and the control that dismisses each,
// and the errors it shows.
package page

import (
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/screenagent/backend/shared/pagemodel"
	"github.com/screenagent/backend/shared/tokens"
)

// DefaultBudget is the token budget of the page part of the prompt when the caller sets none.
const DefaultBudget = 16000

const (
	maxHref   = 100 // runes of a link target shown to the model
	maxOption = 300 // runes of a select's option list
	emptyPage = "(the page has no elements and no text)"
)

// Options say how to render a page.
type Options struct {
	// Query is the user's task: when the page must be cut, the lines that share its words
	// are kept, each with its neighbourhood.
	Query string
	// Budget is the token budget (DefaultBudget when <= 0), as counted by tokens.Estimate.
	Budget int
	// Previous is the page of the previous step, nil when there is none. Elements that were
	// not on it are marked with a leading "*".
	Previous *pagemodel.Page
	// PreviousDigest stands for Previous when only its Digest (pagemodel.Page.Digest) was
	// kept (nil: none).
	PreviousDigest []byte
	// URLChanged says the page is at another URL than the previous one, which the legend of
	// the marks must not call unchanged.
	URLChanged bool
}

// Rendered is the page part of the prompt.
type Rendered struct {
	Text             string
	Tokens           int // tokens.Estimate(Text), never more than the budget
	ElementsShown    int
	ElementsTotal    int
	TextOmittedChars int // runes of page text left out
	NewElements      int // elements marked new since the previous page
	Truncated        bool
}

// Render writes the page for the prompt as an indented outline in document order (see
// the package documentation): first the title, a note of what was cut and a legend of
// the new-element marks, then the lines. When the page does not fit the budget it keeps,
// in this order, the open dialogs and cookie banners, the top of the page, the lines that
// share words with the query together with their row, card or paragraph and the headers
// of the containers they are in, then whatever else fits in document order; each run of
// left-out lines is one "… (N lines omitted)" line.
func Render(p *pagemodel.Page, o Options) Rendered {
	if p == nil {
		p = pagemodel.Parse("")
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	lay := layoutOf(p)
	prev := o.Previous.Identity()
	if prev == nil && len(o.PreviousDigest) > 0 {
		prev = pagemodel.ReadDigest(o.PreviousDigest)
	}
	ch := compare(p, prev)
	head := heading(p.Title(), prev != nil, ch, o.URLChanged)
	marks := ch.marks
	r := Rendered{ElementsTotal: len(p.Elements()), NewElements: ch.added}
	if ch.allNew {
		marks, r.NewElements = nil, 0
	}
	if len(lay.lines) == 0 {
		return renderEmpty(r, append(head, emptyPage), budget)
	}
	s := newSelection(lay, marks)
	s.fit(lay, head, budget, o.Query, len(p.Elements()))
	return s.write(r, head, budget, len(p.Elements()))
}

// write completes r with the head and the kept lines, dropping the last ones while the text
// exceeds the budget.
func (s *selection) write(r Rendered, head []string, budget, elements int) Rendered {
	for {
		r.Text, r.ElementsShown, r.TextOmittedChars, r.Truncated = s.assemble(head, elements)
		r.Tokens = tokens.Estimate(r.Text)
		if r.Tokens <= budget {
			return r
		}
		// The line costs are an upper bound, so this only runs when the budget cannot
		// even hold the head and the note.
		if !s.dropLast() {
			if len(head) == 0 {
				r.Text, r.Tokens = "", 0
				return r
			}
			head = head[:len(head)-1]
		}
	}
}

// heading is what comes before the lines: the title, and the legend of the marks when there is
// a previous page.
func heading(title string, hasPrev bool, ch changes, urlChanged bool) []string {
	var head []string
	if title != "" {
		head = append(head, "Title: "+escapeRefs(title))
	}
	if hasPrev {
		head = append(head, ch.legend(urlChanged))
	}
	return head
}

// renderEmpty is r for a page without lines: the head alone, its last lines dropped until it
// fits the budget.
func renderEmpty(r Rendered, head []string, budget int) Rendered {
	r.Text = strings.Join(head, "\n")
	r.Tokens = tokens.Estimate(r.Text)
	for r.Tokens > budget && len(head) > 0 {
		head = head[:len(head)-1]
		r.Text = strings.Join(head, "\n")
		r.Tokens = tokens.Estimate(r.Text)
	}
	return r
}

// fit keeps every line when the page fits the budget after the head, and otherwise chooses
// those to keep in the room the head and the omission note leave.
func (s *selection) fit(lay *layout, head []string, budget int, query string, elements int) {
	headCost := 0
	for _, h := range head {
		headCost += tokens.LineMilli(h)
	}
	// Lines are priced with their newline; the last one has none, which never costs more.
	// Rounding the total to the nearest token lets it reach budget+0.499.
	capacity := budget*1000 + 499
	if headCost+s.total <= capacity {
		s.keepAll()
		return
	}
	s.room = capacity - headCost - noteCost(elements, s.totalChars, len(lay.lines))
	s.choose(lay, query)
}

// selection is the budgeter's state: which lines are kept and what they cost.
type selection struct {
	lines      []line
	texts      []string // each line with its indentation and marks
	cost       []int    // thousandths of a token, with the newline
	prefix     []int    // prefix sums of cost
	keep       []bool
	used       int
	gaps       int // runs of left-out lines, each shown as one marker line
	room       int
	marker     int // the most a marker line costs
	total      int
	totalChars int
}

func newSelection(lay *layout, marks []byte) *selection {
	n := len(lay.lines)
	s := &selection{lines: lay.lines, texts: make([]string, n), cost: make([]int, n), prefix: make([]int, n+1), keep: make([]bool, n), gaps: 1}
	for i, l := range lay.lines {
		s.texts[i] = lineText(l, marks)
		s.cost[i] = tokens.LineMilli(s.texts[i])
		s.prefix[i+1] = s.prefix[i] + s.cost[i]
		s.totalChars += int(l.chars)
	}
	s.total = s.prefix[n]
	s.marker = tokens.LineMilli(strings.Repeat("  ", maxIndent) + omitted(n))
	return s
}

// lineText writes a line with its indentation and a "*" before each new element.
func lineText(l line, marks []byte) string {
	if l.indent == 0 && marks == nil {
		return l.text
	}
	var b strings.Builder
	b.Grow(int(l.indent)*2 + len(l.text) + 4)
	for range l.indent {
		b.WriteString("  ")
	}
	at := 0
	for k := 0; k+1 < len(l.elems); k += 2 {
		if e, off := l.elems[k], int(l.elems[k+1]); marks != nil && marks[e] != 0 {
			b.WriteString(l.text[at:off])
			b.WriteByte(marks[e])
			at = off
		}
	}
	b.WriteString(l.text[at:])
	return b.String()
}

func omitted(n int) string {
	if n == 1 {
		return "… (1 line omitted)"
	}
	return "… (" + thousands(n) + " lines omitted)"
}

func (s *selection) keepAll() {
	for i := range s.keep {
		s.keep[i] = true
	}
	s.used, s.gaps = s.total, 0
}

// extra is what keeping the lines idx (new ones, in increasing order) adds: their cost,
// and the change in the number of runs of left-out lines, each of which costs a marker.
func (s *selection) extra(idx []int) (cost, gaps int) {
	for k, j := range idx {
		cost += s.cost[j]
		left := j == 0 || s.keep[j-1] || (k > 0 && idx[k-1] == j-1)
		right := j == len(s.keep)-1 || s.keep[j+1]
		switch {
		case !left && !right: // splits a run in two
			gaps++
		case left && right: // fills a run
			gaps--
		}
	}
	return cost, gaps
}

// try keeps the lines idx when they fit and reports whether they did.
func (s *selection) try(idx []int) bool {
	idx = s.missing(idx)
	if len(idx) == 0 {
		return true
	}
	cost, gaps := s.extra(idx)
	if s.used+cost+(s.gaps+gaps)*s.marker > s.room {
		return false
	}
	for _, j := range idx {
		s.keep[j] = true
	}
	s.used += cost
	s.gaps += gaps
	return true
}

// missing returns the lines of idx not kept yet, sorted and without repeats.
func (s *selection) missing(idx []int) []int {
	sort.Ints(idx)
	out := idx[:0]
	for k, j := range idx {
		if !s.keep[j] && (k == 0 || idx[k-1] != j) {
			out = append(out, j)
		}
	}
	return out
}

// withHeaders returns line i with the header lines of the containers it is in, and the
// column names of a table it is in.
func withHeaders(lay *layout, i int, idx []int) []int {
	idx = append(idx, i)
	for g := lay.lines[i].group; g >= 0; g = lay.groups[g].parent {
		if h := lay.groups[g].header; h >= 0 && int(h) != i {
			idx = append(idx, int(h))
		}
		if c := lay.groups[g].columns; c >= 0 && int(c) != i {
			idx = append(idx, int(c))
		}
	}
	return idx
}

// choose marks the lines to keep within s.room.
func (s *selection) choose(lay *layout, query string) {
	if s.room <= 0 {
		return
	}
	var idx []int
	// Open dialogs and banners cover the page: they come first, whole when they fit.
	for o := range lay.overlays {
		idx = s.keepOverlay(lay, o, idx)
	}
	// The top of the page, up to a quarter of the room.
	for i := range s.lines {
		if s.used+s.cost[i] > s.room/4 || !s.try(withHeaders(lay, i, idx[:0])) {
			break
		}
	}
	// The lines that concern the query, each with its neighbourhood.
	nbMax := min(max(s.room/10, 60_000), 300_000)
	for _, i := range s.related(query) {
		if s.keep[i] {
			continue
		}
		if !s.try(s.neighbourhood(lay, i, nbMax)) {
			s.try(withHeaders(lay, i, idx[:0]))
		}
	}
	// Then what fits in document order, up to the first line that does not: picking
	// smaller lines beyond it would shred the rest of the page into fragments.
	for i := range s.lines {
		if !s.keep[i] && !s.try(withHeaders(lay, i, idx[:0])) {
			break
		}
	}
}

// neighbourhood returns line i with the largest group around it that costs at most limit
// (its row, card, list item or paragraph), else with the lines next to it in its group,
// and the headers of the containers it is in.
func (s *selection) neighbourhood(lay *layout, i int, limit int) []int {
	lo, hi := i, i+1
	for g := lay.lines[i].group; g >= 0; g = lay.groups[g].parent {
		gr := lay.groups[g]
		if s.prefix[gr.end]-s.prefix[gr.start] > limit {
			break
		}
		lo, hi = int(gr.start), int(gr.end)
	}
	if hi-lo == 1 {
		if g := lay.lines[i].group; g >= 0 {
			gr := lay.groups[g]
			lo, hi = max(i-1, int(gr.start)), min(i+2, int(gr.end))
		}
	}
	var idx []int
	for j := lo; j < hi; j++ {
		idx = withHeaders(lay, j, idx)
	}
	return idx
}

// keepOverlay keeps the lines of overlay o, whole when they fit and else line by line; idx is
// scratch space, returned for reuse.
func (s *selection) keepOverlay(lay *layout, o int, idx []int) []int {
	idx = idx[:0]
	for i, l := range s.lines {
		if int(l.overlay) == o {
			idx = withHeaders(lay, i, idx)
		}
	}
	if s.try(idx) {
		return idx
	}
	for i, l := range s.lines {
		if int(l.overlay) == o {
			s.try(withHeaders(lay, i, idx[:0]))
		}
	}
	return idx
}

// related returns the lines that share words with the query, best first: a word counts
// more the fewer lines have it.
func (s *selection) related(query string) []int {
	q := newQuery(query)
	if q.empty() {
		return nil
	}
	masks, weight := s.termWeights(q)
	type scored struct {
		i     int
		score float64
	}
	var out []scored
	for i, m := range masks {
		if m == 0 {
			continue
		}
		sc := 0.0
		for b := m; b != 0; b &= b - 1 {
			sc += weight[bits.TrailingZeros64(b)]
		}
		out = append(out, scored{i, sc})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].score > out[b].score })
	idx := make([]int, len(out))
	for k, o := range out {
		idx[k] = o.i
	}
	return idx
}

// dropLast leaves out the last kept line and reports whether there was one.
func (s *selection) dropLast() bool {
	for i := len(s.keep) - 1; i >= 0; i-- {
		if s.keep[i] {
			s.keep[i] = false
			return true
		}
	}
	return false
}

// termWeights is which of the query's terms each line has (a bit per term), and each term's
// weight: the fewer lines have it, the more it weighs.
func (s *selection) termWeights(q query) ([]uint64, [maxTerms]float64) {
	masks := make([]uint64, len(s.lines))
	var df [maxTerms]int
	for i, l := range s.lines {
		m := q.match(l.text)
		masks[i] = m
		for b := m; b != 0; b &= b - 1 {
			df[bits.TrailingZeros64(b)]++
		}
	}
	var weight [maxTerms]float64
	for t, d := range df {
		if d > 0 {
			weight[t] = math.Log2(1 + float64(len(s.lines))/float64(d))
		}
	}
	return masks, weight
}

// assemble writes the head, the note when something was cut, and the kept lines with a
// marker line for each run of left-out ones.
func (s *selection) assemble(head []string, elements int) (text string, shown, omittedChars int, truncated bool) {
	body, shown, shownChars, dropped := s.body()
	omittedChars = s.totalChars - shownChars
	truncated = dropped > 0
	var b strings.Builder
	for _, h := range head {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	if truncated {
		b.WriteString(omissionNote(shown, elements, omittedChars, s.totalChars, dropped))
		b.WriteByte('\n')
	}
	if shown == 0 && shownChars == 0 && truncated {
		// Nothing of the page fits: the note says so, marker lines would not.
		return strings.TrimSuffix(b.String(), "\n"), 0, omittedChars, true
	}
	b.WriteString(body)
	return strings.TrimSuffix(b.String(), "\n"), shown, omittedChars, truncated
}

// body writes the kept lines, each run of left-out ones as a marker line; it counts the elements
// and the runes of text shown, and the lines left out.
func (s *selection) body() (body string, shown, shownChars, dropped int) {
	var b strings.Builder
	for i := 0; i < len(s.lines); i++ {
		if s.keep[i] {
			shown += len(s.lines[i].elems) / 2
			shownChars += int(s.lines[i].chars)
			b.WriteString(s.texts[i])
			b.WriteByte('\n')
			continue
		}
		j := i
		for j < len(s.lines) && !s.keep[j] {
			j++
		}
		dropped += j - i
		for range min(s.lines[i].indent, maxIndent) {
			b.WriteString("  ")
		}
		b.WriteString(omitted(j - i))
		b.WriteByte('\n')
		i = j - 1
	}
	return b.String(), shown, shownChars, dropped
}

// omissionNote says what was cut, e.g. "[412 of 1,203 elements and 80% of the text
// omitted to fit the budget]".
func omissionNote(shown, total, omittedChars, totalChars, lines int) string {
	var parts []string
	if shown < total {
		parts = append(parts, thousands(total-shown)+" of "+thousands(total)+" elements")
	}
	if omittedChars > 0 && totalChars > 0 {
		pct := omittedChars * 100 / totalChars
		s := strconv.Itoa(pct) + "%"
		switch {
		case omittedChars == totalChars:
			s = "all"
		case pct == 0:
			s = "<1%"
		}
		parts = append(parts, s+" of the text")
	}
	if len(parts) == 0 {
		parts = append(parts, plural(lines, "line"))
	}
	return "[" + strings.Join(parts, " and ") + " omitted to fit the budget]"
}

// noteCost is the most the omission note can cost for a page of this size.
func noteCost(elems, textChars, lines int) int {
	c := tokens.LineMilli(omissionNote(0, elems, 0, textChars, lines))
	for _, o := range []int{1, textChars - 1, textChars} {
		if o > 0 {
			c = max(c, tokens.LineMilli(omissionNote(0, elems, o, textChars, lines)))
		}
	}
	return c
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// writeAttrs writes the element's attributes, leaving out a button's type="button", and a
// label, title, alt or placeholder that repeats its text (or its aria-label).
func writeAttrs(b *strings.Builder, e pagemodel.Element, text string) {
	label, _ := e.Attr("aria-label")
	for _, a := range e.Attrs {
		v := a.Value
		if a.Boolean() {
			b.WriteByte(' ')
			b.WriteString(a.Name)
			continue
		}
		switch a.Name {
		case "type":
			if e.Tag == "button" && strings.EqualFold(v, "button") {
				continue
			}
		case "aria-label":
			if strings.EqualFold(v, text) {
				continue
			}
		case "title", "alt", "placeholder":
			if strings.EqualFold(v, text) || strings.EqualFold(v, label) {
				continue
			}
		case "href":
			v = shortHref(v)
		}
		if v == "" {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(a.Name)
		b.WriteByte('=')
		writeQuoted(b, v)
	}
}

// formatElement writes an element as `[12] input type="email" placeholder="Email"`,
// leaving out what repeats its text or another attribute, and its text when withText is
// false (an element holding other elements, whose text is on the lines below it). A
// textarea's text is its value.
func formatElement(e pagemodel.Element, withText bool) string {
	var b strings.Builder
	b.WriteByte('[')
	b.WriteString(strconv.Itoa(e.ID))
	b.WriteString("] ")
	b.WriteString(e.Tag)
	text := e.Text
	if e.Tag == "select" {
		text = ""
	}
	writeAttrs(&b, e, text)
	switch {
	case e.Tag == "textarea" && text != "":
		b.WriteString(" value=")
		writeQuoted(&b, text)
	case withText && text != "":
		b.WriteByte(' ')
		writeQuoted(&b, text)
	}
	return b.String()
}

func quote(s string) string {
	var b strings.Builder
	writeQuoted(&b, s)
	return b.String()
}

// writeQuoted writes s in double quotes with '"' and '\' escaped by a backslash, and,
// as in page text, "[12]" written "\[12]".
func writeQuoted(b *strings.Builder, s string) {
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
		case '[':
			if isRef(s, i) {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
}

// shortHref drops link targets that say nothing (scripts, bare anchors) and cuts long ones.
func shortHref(h string) string {
	if h == "#" || strings.HasPrefix(strings.ToLower(h), "javascript:") {
		return ""
	}
	return cutRunes(h, maxHref)
}

// cutRunes shortens s to at most n runes, marking the cut with "…".
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for k < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i] + "…"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}
