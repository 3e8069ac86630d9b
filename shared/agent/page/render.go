package page

import (
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultBudget is the token budget of the page part of the prompt when the caller sets none.
const DefaultBudget = 16000

const (
	maxChunk = 300 // runes of a text line; longer runs are split so they can be cut
	maxHref  = 100 // runes of a link target shown to the model

	elementsHeader = `Elements ([id] tag attributes "text"):`
	noElements     = "Elements: none"
	textHeader     = "Text:"
	emptyPage      = "(the page has no elements and no text)"
)

// Rendered is the page part of the prompt.
type Rendered struct {
	Text             string
	Tokens           int // EstimateTokens(Text), never more than the budget
	ElementsShown    int
	ElementsTotal    int
	TextOmittedChars int // runes of page text left out
	Truncated        bool
}

// item is one line of the rendered page.
type item struct {
	line  string
	cost  int // thousandths of a token, with its newline
	chars int // runes of page text (text lines only)
	score int // query terms it matches
	keep  bool
}

// Render writes the page for the prompt within budgetTokens (DefaultBudget when <= 0), as
// counted by EstimateTokens: first the elements with ids, one per line, then the plain
// text, both in document order. When the page does not fit, it keeps the top of the page
// and the lines that share words with the query, and a first line says what was left out.
func Render(p *Page, query string, budgetTokens int) Rendered {
	if p == nil {
		p = &Page{}
	}
	if budgetTokens <= 0 {
		budgetTokens = DefaultBudget
	}
	elems := make([]item, len(p.elements))
	for i, e := range p.elements {
		elems[i] = newItem(formatElement(e), 0)
	}
	var texts []item
	for _, run := range p.texts {
		for _, c := range chunks(run) {
			texts = append(texts, newItem(c, utf8.RuneCountInString(c)))
		}
	}
	totalChars := 0
	for _, t := range texts {
		totalChars += t.chars
	}
	r := Rendered{ElementsTotal: len(elems)}

	// Lines are priced with their newline; the last one has none, which never costs more.
	// Rounding the total to the nearest token lets it reach budget+0.499.
	capacity := budgetTokens*1000 + 499
	full := headerCost(len(elems) > 0, len(texts) > 0) + sumCost(elems) + sumCost(texts)
	if full <= capacity {
		keepAll(elems)
		keepAll(texts)
	} else {
		scoreItems(p, query, elems, texts)
		avail := capacity - headerCost(len(elems) > 0, len(texts) > 0) - noteCost(len(elems), totalChars)
		choose(elems, texts, avail)
	}
	for {
		r.Text, r.ElementsShown, r.TextOmittedChars = assemble(elems, texts, totalChars)
		r.Tokens = EstimateTokens(r.Text)
		r.Truncated = r.ElementsShown < len(elems) || r.TextOmittedChars > 0
		if r.Tokens <= budgetTokens {
			return r
		}
		// The line costs are an upper bound, so this only runs when the budget cannot
		// even hold the headers and the note.
		if !dropLast(elems, texts) {
			r.Text, r.Tokens = "", 0
			return r
		}
	}
}

func newItem(line string, chars int) item {
	return item{line: line, cost: lineMilli(line), chars: chars}
}

func headerCost(hasElems, hasText bool) int {
	var c int
	switch {
	case hasElems:
		c = lineMilli(elementsHeader)
	case hasText:
		c = lineMilli(noElements)
	default:
		c = lineMilli(emptyPage)
	}
	if hasText {
		c += lineMilli(textHeader)
	}
	return c
}

func sumCost(items []item) int {
	c := 0
	for _, it := range items {
		c += it.cost
	}
	return c
}

func keepAll(items []item) {
	for i := range items {
		items[i].keep = true
	}
}

// choose marks the lines to show within avail thousandths of a token. Elements come first
// but leave the text at least a quarter of the room (less if the text needs less).
func choose(elems, texts []item, avail int) {
	if avail <= 0 {
		return
	}
	elemNeed, textNeed := sumCost(elems), sumCost(texts)
	textShare := min(textNeed, max(avail/4, avail-elemNeed))
	used := fill(elems, avail-textShare)
	fill(texts, avail-used)
}

// fill keeps lines of items within room and returns what they cost: first the top of the
// page (up to a quarter of the room), then the lines that match the query best, then the
// rest in document order, skipping lines that no longer fit.
func fill(items []item, room int) int {
	used := 0
	for i := range items {
		if used+items[i].cost > room/4 {
			break
		}
		items[i].keep = true
		used += items[i].cost
	}
	var related []int
	for i, it := range items {
		if it.score > 0 && !it.keep {
			related = append(related, i)
		}
	}
	sort.SliceStable(related, func(a, b int) bool { return items[related[a]].score > items[related[b]].score })
	for _, i := range related {
		if used+items[i].cost <= room {
			items[i].keep = true
			used += items[i].cost
		}
	}
	for i := range items {
		if !items[i].keep && used+items[i].cost <= room {
			items[i].keep = true
			used += items[i].cost
		}
	}
	return used
}

// dropLast unmarks the last shown text line, else the last shown element, and reports
// whether there was one.
func dropLast(elems, texts []item) bool {
	for _, items := range [][]item{texts, elems} {
		for i := len(items) - 1; i >= 0; i-- {
			if items[i].keep {
				items[i].keep = false
				return true
			}
		}
	}
	return false
}

func assemble(elems, texts []item, totalChars int) (text string, shown, omittedChars int) {
	var b strings.Builder
	shownChars, textLines := 0, 0
	for _, it := range elems {
		if it.keep {
			shown++
		}
	}
	for _, it := range texts {
		if it.keep {
			shownChars += it.chars
			textLines++
		}
	}
	omittedChars = totalChars - shownChars
	if note := omissionNote(shown, len(elems), omittedChars, totalChars); note != "" {
		b.WriteString(note)
		b.WriteByte('\n')
	}
	switch {
	case shown > 0:
		b.WriteString(elementsHeader)
		b.WriteByte('\n')
		for _, it := range elems {
			if it.keep {
				b.WriteString(it.line)
				b.WriteByte('\n')
			}
		}
	case len(elems) == 0 && len(texts) == 0:
		b.WriteString(emptyPage)
		b.WriteByte('\n')
	case len(elems) == 0:
		b.WriteString(noElements)
		b.WriteByte('\n')
	}
	if textLines > 0 {
		b.WriteString(textHeader)
		b.WriteByte('\n')
		for _, it := range texts {
			if it.keep {
				b.WriteString(it.line)
				b.WriteByte('\n')
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), shown, omittedChars
}

// omissionNote says what was cut, e.g. "[412 of 1,203 elements and 80% of the text
// omitted to fit the budget]", or "" when nothing was.
func omissionNote(shown, total, omittedChars, totalChars int) string {
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
		return ""
	}
	return "[" + strings.Join(parts, " and ") + " omitted to fit the budget]"
}

// noteCost is the most the omission note can cost for a page of this size.
func noteCost(elems, textChars int) int {
	c := lineMilli(omissionNote(0, elems, 0, textChars))
	for _, omitted := range []int{1, textChars - 1, textChars} {
		if omitted > 0 {
			c = max(c, lineMilli(omissionNote(0, elems, omitted, textChars)))
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

// formatElement writes an element as `[12] input type=email placeholder="Email"`, leaving
// out what repeats its text or another attribute.
func formatElement(e Element) string {
	var b strings.Builder
	b.WriteByte('[')
	b.WriteString(strconv.Itoa(e.ID))
	b.WriteString("] ")
	b.WriteString(e.Tag)
	label, _ := e.Attr("aria-label")
	for _, a := range e.Attrs {
		v := a.Value
		if boolAttrs[a.Name] {
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
			if strings.EqualFold(v, e.Text) {
				continue
			}
		case "title", "alt", "placeholder":
			if strings.EqualFold(v, e.Text) || strings.EqualFold(v, label) {
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
		b.WriteString(quote(v))
	}
	if e.Text != "" {
		b.WriteByte(' ')
		b.WriteString(quote(e.Text))
	}
	return b.String()
}

var quoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func quote(s string) string { return `"` + quoter.Replace(s) + `"` }

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

// chunks splits a text run into lines of at most maxChunk runes, at a space when there is
// one in the second half of the line.
func chunks(run string) []string {
	var out []string
	for run != "" {
		cut, n := 0, 0
		for cut < len(run) && n < maxChunk {
			_, size := utf8.DecodeRuneInString(run[cut:])
			cut += size
			n++
		}
		if cut < len(run) {
			if sp := strings.LastIndexByte(run[:cut], ' '); sp > cut/2 {
				cut = sp
			}
		}
		if c := strings.TrimSpace(run[:cut]); c != "" {
			out = append(out, c)
		}
		run = strings.TrimSpace(run[cut:])
	}
	return out
}

// scoreItems sets each line's score: how many of the query's terms it contains.
func scoreItems(p *Page, query string, elems, texts []item) {
	q := newQuery(query)
	if q.empty() {
		return
	}
	for i, e := range p.elements {
		var m uint64
		m |= q.match(e.Text)
		for _, a := range e.Attrs {
			if !boolAttrs[a.Name] {
				m |= q.match(a.Value)
			}
		}
		elems[i].score = bits.OnesCount64(m)
	}
	for i := range texts {
		texts[i].score = bits.OnesCount64(q.match(texts[i].line))
	}
}
