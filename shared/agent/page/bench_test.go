package page

import (
	"strconv"
	"testing"

	"github.com/screenagent/backend/shared/pagemodel"
)

// The page sizes of the benchmarks, up to the 500,000 characters the API accepts.
var benchSizes = []int{50_000, 200_000, 500_000}

// BenchmarkRender renders pages that were never rendered: a page builds its outline on
// its first rendering, and the engine renders each page once.
func BenchmarkRender(b *testing.B) {
	for _, n := range benchSizes {
		dom := bigDOM(n)
		b.Run(strconv.Itoa(n/1000)+"K", func(b *testing.B) {
			var fresh []*pagemodel.Page
			for b.Loop() {
				if len(fresh) == 0 {
					b.StopTimer()
					for range 8 {
						fresh = append(fresh, pagemodel.Parse(dom))
					}
					b.StartTimer()
				}
				Render(fresh[0], Options{Query: "download the invoice", Budget: DefaultBudget})
				fresh = fresh[1:]
			}
		})
	}
}
