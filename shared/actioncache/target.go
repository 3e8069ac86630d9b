package actioncache

import "github.com/screenagent/backend/shared/pagemodel"

// Target is what an entry knows of the element its action acted on: the element's signature
// (page.Signature: tag, accessible name, stable attributes and the text of its row or card),
// never its id, which is only the client's numbering of one page.
type Target struct {
	Signature uint64 `json:"sig"`
	Tag       string `json:"tag"`
}

// targetOf describes the element with this id on the page.
func targetOf(pg *pagemodel.Page, id int) (Target, bool) {
	for i, e := range pg.Elements() {
		if e.ID == id {
			return Target{Signature: pg.Signature(i), Tag: e.Tag}, true
		}
	}
	return Target{}, false
}

// resolve finds the target on the page: its id and how many elements fit. Only exactly one fit
// is a match; none or several is a miss, because a replay must never guess between look-alikes.
func resolve(pg *pagemodel.Page, t Target) (id, fits int) {
	seen := map[int]bool{}
	for i, e := range pg.Elements() {
		if e.Tag != t.Tag || pg.Signature(i) != t.Signature || seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		id, fits = e.ID, fits+1
	}
	return id, fits
}
