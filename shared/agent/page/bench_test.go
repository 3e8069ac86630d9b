package page

import (
	"strconv"
	"testing"
)

var benchSizes = []int{50_000, 200_000, 500_000}

func BenchmarkParse(b *testing.B) {
	for _, n := range benchSizes {
		dom := bigDOM(n)
		b.Run(strconv.Itoa(n/1000)+"K", func(b *testing.B) {
			b.SetBytes(int64(len(dom)))
			for b.Loop() {
				Parse(dom)
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	for _, n := range benchSizes {
		p := Parse(bigDOM(n))
		b.Run(strconv.Itoa(n/1000)+"K", func(b *testing.B) {
			for b.Loop() {
				Render(p, Options{Query: "download the invoice", Budget: DefaultBudget})
			}
		})
	}
}
