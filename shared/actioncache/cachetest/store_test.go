package cachetest

import (
	"testing"
	"time"

	"github.com/screenagent/backend/shared/actioncache"
)

func TestStoreKeepsTheContract(t *testing.T) {
	Contract(t, func(_ *testing.T, now func() time.Time) actioncache.Store {
		s := New()
		s.Now = now
		return s
	})
}
