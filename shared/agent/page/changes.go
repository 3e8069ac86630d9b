package page

import (
	"strings"

	"github.com/screenagent/backend/shared/pagemodel"
)

// changes is what differs between the previous page and this one, by content: elements are
// matched by signature (ids may be renumbered between steps), so a matched element whose value
// or state differs is changed, not new.
type changes struct {
	marks    []byte // per element: '*' new, '~' value or state changed, 0 as before
	added    int
	changed  int
	gone     int
	newTexts int
	allNew   bool
	// oldText: some line of text was on the previous page too (a heading that stayed), so not
	// everything is new even when every element is.
	oldText bool
	// partial is true when the previous page's values and text are not known.
	partial bool
}

func compare(p *pagemodel.Page, prev *pagemodel.Identity) changes {
	var c changes
	if prev == nil {
		return c
	}
	c.partial = prev.States == nil
	cur := p.Identity()
	matched := c.markElements(prev, cur)
	c.gone = len(prev.Signatures) - matched
	c.allNew = c.added > 0 && c.added == len(p.Elements()) && matched == 0
	if !c.partial {
		c.countTexts(prev.Texts, cur.Texts)
	}
	return c
}

// markElements matches the elements to the previous page's by signature, marking the new ones
// and, when the previous states are known, those whose state changed; it returns how many matched.
func (c *changes) markElements(prev, cur *pagemodel.Identity) (matched int) {
	seen := make(map[uint64][]int, len(prev.Signatures))
	for j, s := range prev.Signatures {
		seen[s] = append(seen[s], j)
	}
	c.marks = make([]byte, len(cur.Signatures))
	for i, s := range cur.Signatures {
		q := seen[s]
		if len(q) == 0 {
			c.marks[i] = '*'
			c.added++
			continue
		}
		j := q[0]
		seen[s] = q[1:]
		matched++
		if !c.partial && prev.States[j] != cur.States[i] {
			c.marks[i] = '~'
			c.changed++
		}
	}
	return matched
}

// countTexts counts the new lines of text, beyond as many of the same line as the previous page
// had, and notes whether any line was there before.
func (c *changes) countTexts(prev, cur []uint64) {
	have := make(map[uint64]int, len(prev))
	for _, t := range prev {
		have[t]++
	}
	for _, t := range cur {
		if have[t] > 0 {
			have[t]--
			c.oldText = true
			continue
		}
		c.newTexts++
	}
}

// legend says what changed since the previous step and what the marks mean; it never calls
// a page unchanged that has a new URL, new or changed elements, or new text.
func (c changes) legend(urlChanged bool) string {
	if c.allNew && (c.oldText || c.partial) {
		return "(every element on this page is new since the previous step)"
	}
	if c.allNew {
		return "(everything on this page is new since the previous step)"
	}
	var parts []string
	if urlChanged {
		parts = append(parts, "new URL")
	}
	parts = append(parts, c.markParts()...)
	// Elements gone and new text are said when no mark shows a change, so that such a page is
	// never called unchanged; beside marks they would only lengthen every prompt.
	if c.added+c.changed == 0 {
		parts = append(parts, c.unmarkedParts()...)
	}
	switch {
	case len(parts) > 0:
		return "(since the previous step: " + strings.Join(parts, "; ") + ")"
	case c.partial:
		return "(no new elements since the previous step)"
	}
	return "(unchanged since the previous step)"
}

// markParts say what the marks mean, for the marks the page has.
func (c changes) markParts() []string {
	var parts []string
	switch {
	case c.added == 1:
		parts = append(parts, "* marks the new element")
	case c.added > 1:
		parts = append(parts, "* marks the "+thousands(c.added)+" new elements")
	}
	switch {
	case c.changed == 1:
		parts = append(parts, "~ marks the element whose value or state changed")
	case c.changed > 1:
		parts = append(parts, "~ marks the "+thousands(c.changed)+" elements whose value or state changed")
	}
	return parts
}

// unmarkedParts say the changes no mark shows: elements gone and new lines of text.
func (c changes) unmarkedParts() []string {
	var parts []string
	switch {
	case c.gone == 1:
		parts = append(parts, "1 element gone")
	case c.gone > 1:
		parts = append(parts, thousands(c.gone)+" elements gone")
	}
	switch {
	case c.newTexts == 1:
		parts = append(parts, "1 new line of text")
	case c.newTexts > 1:
		parts = append(parts, thousands(c.newTexts)+" new lines of text")
	}
	return parts
}
