package realtime

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncode(t *testing.T) {
	cases := []struct {
		name  string
		event Event
		want  string
	}{
		{"step_progress", StepProgress{SessionID: "s", TaskID: "t", CurrentStep: 2, TotalSteps: 5, StepDescription: "Enter the address", StepStatus: StepExecuting},
			`{"type":"step_progress","id":7,"sessionId":"s","taskId":"t","currentStep":2,"totalSteps":5,"stepDescription":"Enter the address","stepStatus":"executing"}`},
		{"variable_extracted", VariableExtracted{SessionID: "s", TaskID: "t", Key: "total", Value: "€12 <b>"},
			`{"type":"variable_extracted","id":7,"sessionId":"s","taskId":"t","key":"total","value":"€12 \u003cb\u003e"}`},
		{"task_status without a question", TaskStatus{SessionID: "s", TaskID: "t", Status: "completed"},
			`{"type":"task_status","id":7,"sessionId":"s","taskId":"t","status":"completed"}`},
		{"run_step", RunStep{RunID: "r", Step: 3, Action: "execute_tool", Tool: "click", Status: "running"},
			`{"type":"run_step","id":7,"runId":"r","step":3,"action":"execute_tool","tool":"click","status":"running"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(7, tc.event)
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

// Free texts are cut so that even the largest event stays under API Gateway's 32 KB frame.
func TestEncodeClipsLongText(t *testing.T) {
	long := strings.Repeat("ü", 40_000)
	for _, e := range []Event{
		StepProgress{StepDescription: long}, VariableExtracted{Value: long}, TaskStatus{UserQuestion: long},
	} {
		data, err := Encode(1, e)
		if err != nil || len(data) > MaxMessage {
			t.Fatalf("%s: %d bytes (%v), want at most %d", e.EventType(), len(data), err, MaxMessage)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			if s, ok := v.(string); ok && utf8.RuneCountInString(s) > maxText {
				t.Errorf("%s.%s has %d characters, want at most %d", e.EventType(), k, utf8.RuneCountInString(s), maxText)
			}
		}
	}
}
