package history

import (
	"reflect"
	"testing"
)

func TestActionPayloadOfABatch(t *testing.T) {
	got := actionPayload("setValue(1, \"Ada\")\nclick(2)")
	want := map[string]any{"type": "batch", "actions": []map[string]any{
		{"type": "setValue", "elementId": 1, "text": "Ada"},
		{"type": "click", "elementId": 2},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("actionPayload(batch) = %v, want %v", got, want)
	}
}
