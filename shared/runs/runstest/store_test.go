package runstest

import (
	"testing"
	"time"

	"github.com/screenagent/backend/shared/runs"
)

func TestStoreKeepsTheContract(t *testing.T) {
	Contract(t, func(_ *testing.T, now func() time.Time) runs.Store {
		s := New(runs.DefaultRetention)
		s.Now = now
		return s
	})
}
