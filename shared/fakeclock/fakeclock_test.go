package fakeclock

import (
	"sync"
	"testing"
	"time"
)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	c := New(start)
	steps := []struct {
		name string
		move func()
		want time.Time
	}{
		{"reads its start", func() {}, start},
		{"advances", func() { c.Advance(time.Hour) }, start.Add(time.Hour)},
		{"goes back", func() { c.Advance(-2 * time.Hour) }, start.Add(-time.Hour)},
		{"is set", func() { c.Set(start.Add(time.Minute)) }, start.Add(time.Minute)},
	}
	for _, s := range steps {
		s.move()
		if got := c.Now(); !got.Equal(s.want) {
			t.Fatalf("%s: got %v, want %v", s.name, got, s.want)
		}
	}
}

func TestClockIsSafeForConcurrentReaders(t *testing.T) {
	c := New(time.Unix(0, 0))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_ = c.Now()
			}
		}()
	}
	for range 100 {
		c.Advance(time.Second)
	}
	wg.Wait()
	if got, want := c.Now(), time.Unix(100, 0); !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
