package chat

import (
	"testing"
	"time"
)

func TestRetention(t *testing.T) {
	r := DefaultRetention()
	if err := r.Validate(); err != nil {
		t.Fatalf("DefaultRetention().Validate(): %v", err)
	}
	base := t0.Truncate(time.Second)
	tests := []struct {
		status Status
		want   time.Time
	}{
		{StatusActive, base.AddDate(0, 0, 90)},
		{StatusCompleted, base.AddDate(0, 0, 90)},
		{StatusFailed, base.AddDate(0, 0, 90)},
		{StatusInterrupted, base.AddDate(0, 0, 30)},
	}
	for _, tt := range tests {
		if got := r.SessionExpiry(tt.status, t0); !got.Equal(tt.want) {
			t.Errorf("SessionExpiry(%s, t0): got %v, want %v", tt.status, got, tt.want)
		}
	}
	if got, want := r.SnapshotExpiry(t0, base.AddDate(0, 0, 90)), base.AddDate(0, 0, 30); !got.Equal(want) {
		t.Errorf("SnapshotExpiry under a later session expiry: got %v, want %v", got, want)
	}
	if got, want := r.SnapshotExpiry(t0, base.AddDate(0, 0, 7)), base.AddDate(0, 0, 7); !got.Equal(want) {
		t.Errorf("SnapshotExpiry under an earlier session expiry: got %v, want %v", got, want)
	}
	r.Interrupted = 0
	if r.Validate() == nil {
		t.Error("Validate with a zero period: got nil, want an error")
	}
}
