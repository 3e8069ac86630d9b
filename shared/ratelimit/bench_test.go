package ratelimit

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkTake measures one counted request: one conditional UpdateItem against DynamoDB Local.
func BenchmarkTake(b *testing.B) {
	ctx := context.Background()
	l, _, _ := newLimiter(b, windowStart)
	b.Run("one subject", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.Take(ctx, "TENANT#bench", ClassInteract, 1<<30, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel, one hot counter", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := l.Take(ctx, "TENANT#hot", ClassInteract, 1<<30, time.Minute); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("parallel, a counter each", func(b *testing.B) {
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			subject := "TENANT#p" + strconv.FormatInt(next.Add(1), 10)
			for pb.Next() {
				if _, err := l.Take(ctx, subject, ClassInteract, 1<<30, time.Minute); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}
