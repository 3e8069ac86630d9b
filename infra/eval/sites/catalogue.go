package sites

import (
	"fmt"
	"strings"
)

// CatalogueTargetSlug is the one product of the big catalogue that a scenario looks for; it
// sits deep in the page, past where a page cut to a prompt budget by position would stop.
const CatalogueTargetSlug = "obsidian-desk-lamp"

var catalogueTarget = item{CatalogueTargetSlug, "Obsidian desk lamp", "74.00"}

// catalogueItems is the big catalogue's size: its HTML is over 300,000 characters, while the
// client's dom of it stays under the interact API's 500,000.
const catalogueItems = 1900

var (
	catalogue     = buildCatalogue()
	cataloguePage = renderCatalogue()
)

// buildCatalogue makes catalogueItems distinct products from word lists, deterministically,
// with the target at 85% of the list.
func buildCatalogue() []item {
	adjectives := []string{"Rustic", "Modern", "Compact", "Vintage", "Folding", "Classic", "Slim", "Heavy", "Nordic", "Urban",
		"Coastal", "Alpine", "Quiet", "Bright", "Soft", "Sturdy", "Tall", "Round", "Square", "Minimal"}
	materials := []string{"oak", "walnut", "steel", "brass", "linen", "wool", "glass", "marble", "bamboo", "cork",
		"copper", "ceramic", "rattan", "leather", "birch"}
	objects := []string{"desk lamp", "side table", "bookshelf", "floor lamp", "armchair", "stool", "mirror", "rug", "clock",
		"vase", "coat rack", "bench", "cabinet", "planter", "tray", "cushion", "blanket", "candle holder", "shelf", "basket"}
	out := make([]item, 0, catalogueItems)
	at := catalogueItems * 85 / 100
	for i := 0; len(out) < catalogueItems; i++ {
		if len(out) == at {
			out = append(out, catalogueTarget)
			continue
		}
		a, m, o := adjectives[i%len(adjectives)], materials[(i/len(adjectives))%len(materials)], objects[(i/7)%len(objects)]
		name := fmt.Sprintf("%s %s %s", a, m, o)
		slug := strings.ReplaceAll(strings.ToLower(name), " ", "-") + fmt.Sprintf("-%d", i)
		price := fmt.Sprintf("%d.%02d", 10+(i*37)%290, (i*13)%100)
		out = append(out, item{slug, name, price})
	}
	return out
}

func renderCatalogue() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Full catalogue — Shop</title></head><body><h1>Full catalogue</h1><p>Every product we sell, in one list.</p><ul>`)
	for i, it := range catalogue {
		fmt.Fprintf(&b, `<li><a href="/item/%s">%s</a> — handmade in small batches, ships in %d days, free returns within 30 days. $%s</li>`,
			it.slug, esc(it.name), 2+i%9, it.price)
		b.WriteByte('\n')
	}
	b.WriteString("</ul></body></html>")
	return b.String()
}
