package cleanup

import (
	"testing"

	"github.com/screenagent/backend/shared/chat/chatdb"
	"github.com/screenagent/backend/shared/runs/runsdb"
	"github.com/screenagent/backend/shared/tasks/tasksdb"
)

func TestKindOf(t *testing.T) {
	tests := []struct{ sk, want string }{
		{tasksdb.HeaderSK, "tasks"},
		{runsdb.HeaderSK, "runs"},
		{chatdb.SessionSK, "sessions"},
		{"STEP#000012", "steps"},
		{"DEBUG#2026-01-01T00:00:00.000000000Z#d1", "debugEntries"},
		{"IDEM", "idempotencyRecords"},
		{"IDEM#step#abc", "idempotencyRecords"},
		{"MSG#0000000001", "messages"},
		{"SNAP#ab12", "snapshots"},
		{"VERIFICATION#000003", "verificationRecords"},
		{"CORRECTION#000001", "correctionRecords"},
	}
	for _, tc := range tests {
		if got := kindOf(tc.sk); got != tc.want {
			t.Errorf("kindOf(%q): got %q, want %q", tc.sk, got, tc.want)
		}
	}
}
